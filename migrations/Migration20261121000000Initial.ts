import { Migration } from '@mikro-orm/migrations';

export class Migration20261121000000Initial extends Migration {
	override async up(): Promise<void> {
		this.addSql(
			`create table "app_state" ("key" varchar(64) not null, "value" jsonb not null, "updated_at" timestamptz not null, primary key ("key"))`,
		);
		this.addSql(
			`create table "conversations" ("id" serial primary key, "user_id" varchar(20) null, "guild_id" varchar(20) null, "source" varchar(16) not null, "created_at" timestamptz not null)`,
		);
		this.addSql(`create index "conversations_user_id_index" on "conversations" ("user_id")`);
		this.addSql(`create index "conversations_guild_id_index" on "conversations" ("guild_id")`);
		this.addSql(`create index "conversations_created_at_index" on "conversations" ("created_at")`);
		this.addSql(
			`create or replace function "conversations_count_inserts_fn"() returns trigger as $$ begin insert into stat_counters (name, value) values ('conversations', 1) on conflict (name) do update set value = stat_counters.value + 1; return null; end; $$ language plpgsql`,
		);
		this.addSql(
			`create trigger "count_inserts" AFTER INSERT on "conversations" for each ROW execute function "conversations_count_inserts_fn"()`,
		);
		this.addSql(
			`create table "crisis_events" ("id" serial primary key, "guild_id" varchar(20) null, "user_id" varchar(20) null, "level" varchar(16) not null, "categories" text[] not null default '{}', "trigger" varchar(16) not null, "details" text null, "alert_message_id" varchar(20) null, "acknowledged_by" varchar(20) null, "acknowledged_at" timestamptz null, "resolved_by" varchar(20) null, "resolved_at" timestamptz null, "created_at" timestamptz not null)`,
		);
		this.addSql(`create index "crisis_events_guild_id_created_at_index" on "crisis_events" ("guild_id", "created_at")`);
		this.addSql(`create index "crisis_events_user_id_created_at_index" on "crisis_events" ("user_id", "created_at")`);
		this.addSql(`create index "crisis_events_created_at_index" on "crisis_events" ("created_at")`);
		this.addSql(
			`create or replace function "crisis_events_count_inserts_fn"() returns trigger as $$ begin insert into stat_counters (name, value) values ('crisisEvents', 1) on conflict (name) do update set value = stat_counters.value + 1; return null; end; $$ language plpgsql`,
		);
		this.addSql(
			`create trigger "count_inserts" AFTER INSERT on "crisis_events" for each ROW execute function "crisis_events_count_inserts_fn"()`,
		);
		this.addSql(
			`create table "feedback" ("id" serial primary key, "user_id" varchar(20) not null, "message" text not null, "source" varchar(16) not null, "status" varchar(16) not null default 'queued', "consent_public" boolean not null default false, "public" boolean not null default false, "featured" boolean not null default false, "reviewer_id" varchar(20) null, "reviewed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null)`,
		);
		this.addSql(`create index "feedback_status_created_at_index" on "feedback" ("status", "created_at")`);
		this.addSql(`create index "feedback_user_id_index" on "feedback" ("user_id")`);
		this.addSql(
			`create table "ghost_letters" ("id" serial primary key, "user_id" varchar(20) not null, "content" text not null, "created_at" timestamptz not null)`,
		);
		this.addSql(`create index "ghost_letters_user_id_created_at_index" on "ghost_letters" ("user_id", "created_at")`);
		this.addSql(
			`create table "guilds" ("id" varchar(20) not null, "settings" jsonb not null default '{}', "joined_at" timestamptz not null, "left_at" timestamptz null, "updated_at" timestamptz not null, primary key ("id"))`,
		);
		this.addSql(
			`create table "memory_turns" ("id" serial primary key, "user_id" varchar(20) not null, "channel_id" varchar(20) not null, "role" varchar(16) not null, "content" text not null, "created_at" timestamptz not null, "expires_at" timestamptz not null)`,
		);
		this.addSql(`create index "memory_turns_user_id_channel_id_created_at_index" on "memory_turns" ("user_id", "channel_id", "created_at")`);
		this.addSql(`create index "memory_turns_expires_at_index" on "memory_turns" ("expires_at")`);
		this.addSql(
			`create table "mood_check_ins" ("id" serial primary key, "user_id" varchar(20) not null, "guild_id" varchar(20) null, "mood" varchar(32) not null, "intensity" smallint not null, "note" text null, "created_at" timestamptz not null)`,
		);
		this.addSql(`create index "mood_check_ins_user_id_created_at_index" on "mood_check_ins" ("user_id", "created_at")`);
		this.addSql(
			`create or replace function "mood_check_ins_count_inserts_fn"() returns trigger as $$ begin insert into stat_counters (name, value) values ('moodCheckIns', 1) on conflict (name) do update set value = stat_counters.value + 1; return null; end; $$ language plpgsql`,
		);
		this.addSql(
			`create trigger "count_inserts" AFTER INSERT on "mood_check_ins" for each ROW execute function "mood_check_ins_count_inserts_fn"()`,
		);
		this.addSql(`create table "stat_counters" ("name" varchar(32) not null, "value" bigint not null default '0', primary key ("name"))`);
		this.addSql(
			`create table "users" ("id" varchar(20) not null, "country" varchar(8) null, "screening_opt_out" boolean not null default false, "memory_enabled" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
		);
		this.addSql(
			`create or replace function "users_count_inserts_fn"() returns trigger as $$ begin insert into stat_counters (name, value) values ('users', 1) on conflict (name) do update set value = stat_counters.value + 1; return null; end; $$ language plpgsql`,
		);
		this.addSql(`create trigger "count_inserts" AFTER INSERT on "users" for each ROW execute function "users_count_inserts_fn"()`);
	}
}
