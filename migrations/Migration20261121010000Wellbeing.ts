import { Migration } from '@mikro-orm/migrations';

/** Check-in reminders and the vote/answer state of /trivia and /wouldyourather (src/lib/db/entities.ts, wellbeing block). */
export class Migration20261121010000Wellbeing extends Migration {
	override async up(): Promise<void> {
		this.addSql(
			`create table "check_in_reminders" ("user_id" varchar(20) not null, "enabled" boolean not null default true, "interval_minutes" int not null, "timezone" varchar(64) not null, "quiet_start" smallint null, "quiet_end" smallint null, "next_due_at" timestamptz not null, "last_sent_at" timestamptz null, "disabled_reason" varchar(32) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("user_id"))`,
		);
		this.addSql(`create index "check_in_reminders_enabled_next_due_at_index" on "check_in_reminders" ("enabled", "next_due_at")`);
		this.addSql(
			`create table "game_rounds" ("id" serial primary key, "kind" varchar(16) not null, "guild_id" varchar(20) null, "started_by" varchar(20) not null, "content" jsonb not null, "revealed_at" timestamptz null, "created_at" timestamptz not null)`,
		);
		this.addSql(`create index "game_rounds_created_at_index" on "game_rounds" ("created_at")`);
		this.addSql(`create index "game_rounds_started_by_index" on "game_rounds" ("started_by")`);
		this.addSql(
			`create table "game_votes" ("round_id" int not null, "user_id" varchar(20) not null, "choice" smallint not null, "created_at" timestamptz not null, primary key ("round_id", "user_id"))`,
		);
		this.addSql(`create index "game_votes_user_id_index" on "game_votes" ("user_id")`);
		this.addSql(
			`alter table "game_votes" add constraint "game_votes_round_id_foreign" foreign key ("round_id") references "game_rounds" ("id") on delete cascade`,
		);
	}

	override async down(): Promise<void> {
		this.addSql(`drop table if exists "game_votes"`);
		this.addSql(`drop table if exists "game_rounds"`);
		this.addSql(`drop table if exists "check_in_reminders"`);
	}
}
