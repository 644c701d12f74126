import { Migration } from '@mikro-orm/migrations';

/**
 * The journal and gratitude tables, and `served_users`: everyone Haven has served, once, which the `users` total of
 * `GET /v1/stats` now counts (it counted only people with a preferences row; a new preferences row now records its
 * person there). The table is filled from every table that knows a person, and the total grows by the people found
 * there without a preferences row (the old total already counts the others, deleted people included).
 */
export class Migration20261123000000Journal extends Migration {
	override async up(): Promise<void> {
		this.addSql(
			`create table "journal_entries" ("id" serial primary key, "user_id" varchar(20) not null, "mood" varchar(32) null, "content" text not null, "reflection" text null, "created_at" timestamptz not null)`,
		);
		this.addSql(`create index "journal_entries_user_id_created_at_index" on "journal_entries" ("user_id", "created_at")`);
		this.addSql(
			`create table "gratitude_items" ("id" serial primary key, "user_id" varchar(20) not null, "day" varchar(10) not null, "content" text not null, "created_at" timestamptz not null)`,
		);
		this.addSql(`create index "gratitude_items_user_id_day_index" on "gratitude_items" ("user_id", "day")`);
		this.addSql(`create table "served_users" ("user_id" varchar(20) not null, "first_seen_at" timestamptz not null, primary key ("user_id"))`);
		this.addSql(
			`insert into "served_users" ("user_id", "first_seen_at")
			select "user_id", min("at") from (
				select "id" as "user_id", "created_at" as "at" from "users"
				union all select "user_id", "created_at" from "mood_check_ins"
				union all select "user_id", "created_at" from "ghost_letters"
				union all select "user_id", "created_at" from "conversations" where "user_id" is not null
				union all select "user_id", "created_at" from "memory_turns"
				union all select "user_id", "created_at" from "crisis_events" where "user_id" is not null
				union all select "user_id", "created_at" from "feedback"
				union all select "user_id", "created_at" from "check_in_reminders"
				union all select "started_by", "created_at" from "game_rounds"
				union all select "user_id", "created_at" from "game_votes"
			) as "known" group by "user_id"`,
		);
		this.addSql(
			`insert into "stat_counters" ("name", "value")
			select 'users', count(*) from "served_users" where "user_id" not in (select "id" from "users")
			on conflict ("name") do update set "value" = "stat_counters"."value" + excluded."value"`,
		);
		this.addSql(
			`create or replace function "users_count_inserts_fn"() returns trigger as $$ begin insert into served_users (user_id, first_seen_at) values (new.id, new.created_at) on conflict (user_id) do nothing; return null; end; $$ language plpgsql`,
		);
		this.addSql(
			`create or replace function "served_users_count_inserts_fn"() returns trigger as $$ begin insert into stat_counters (name, value) values ('users', 1) on conflict (name) do update set value = stat_counters.value + 1; return null; end; $$ language plpgsql`,
		);
		this.addSql(`create trigger "count_inserts" AFTER INSERT on "served_users" for each ROW execute function "served_users_count_inserts_fn"()`);
	}

	override async down(): Promise<void> {
		this.addSql(`drop table if exists "served_users"`);
		this.addSql(`drop function if exists "served_users_count_inserts_fn"()`);
		this.addSql(`drop table if exists "gratitude_items"`);
		this.addSql(`drop table if exists "journal_entries"`);
		this.addSql(
			`create or replace function "users_count_inserts_fn"() returns trigger as $$ begin insert into stat_counters (name, value) values ('users', 1) on conflict (name) do update set value = stat_counters.value + 1; return null; end; $$ language plpgsql`,
		);
	}
}
