import { Migration } from '@mikro-orm/migrations';

/** Blocks of people and servers placed by the owners (src/lib/db/entities.ts, operator block). */
export class Migration20261122000000Blocks extends Migration {
	override async up(): Promise<void> {
		this.addSql(
			`create table "blocks" ("id" serial primary key, "kind" varchar(8) not null, "target_id" varchar(20) not null, "reason" varchar(500) not null, "blocked_by" varchar(20) null, "created_at" timestamptz not null, "lifted_at" timestamptz null, "lifted_by" varchar(20) null)`,
		);
		this.addSql(`create index "blocks_kind_target_id_index" on "blocks" ("kind", "target_id")`);
	}

	override async down(): Promise<void> {
		this.addSql(`drop table if exists "blocks"`);
	}
}
