import { Migration } from '@mikro-orm/migrations';

/**
 * Care after a crisis (src/lib/db/entities.ts, care block): safety plans (encrypted parts), follow-ups the person asked
 * for, and when an unacknowledged moderator alert was raised again.
 */
export class Migration20261124200000Care extends Migration {
	override async up(): Promise<void> {
		this.addSql(
			`create table "safety_plans" ("id" serial primary key, "user_id" varchar(20) not null, "warning_signs" text null, "coping" text null, "distractions" text null, "people" text null, "professionals" text null, "environment" text null, "reasons" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "used_at" timestamptz not null)`,
		);
		this.addSql(`alter table "safety_plans" add constraint "safety_plans_user_id_unique" unique ("user_id")`);
		this.addSql(`create index "safety_plans_used_at_index" on "safety_plans" ("used_at")`);
		this.addSql(
			`create table "crisis_follow_ups" ("user_id" varchar(20) not null, "due_at" timestamptz not null, "created_at" timestamptz not null, primary key ("user_id"))`,
		);
		this.addSql(`create index "crisis_follow_ups_due_at_index" on "crisis_follow_ups" ("due_at")`);
		this.addSql(`alter table "crisis_events" add column "escalated_at" timestamptz null`);
	}

	override async down(): Promise<void> {
		this.addSql(`alter table "crisis_events" drop column if exists "escalated_at"`);
		this.addSql(`drop table if exists "crisis_follow_ups"`);
		this.addSql(`drop table if exists "safety_plans"`);
	}
}
