import { Migration } from '@mikro-orm/migrations';

/**
 * Several instances on one database (src/lib/fleet): who connects which shard (with a heartbeat and the shard's
 * state, for a fleet-wide /v1/status), the identify leases that space out gateway logins across the fleet, and the
 * last run of each fleet-wide job. No user data.
 */
export class Migration20261124100000Fleet extends Migration {
	override async up(): Promise<void> {
		this.addSql(
			`create table "fleet_shards" ("shard_id" int primary key, "shard_count" int not null, "instance_id" varchar(64) null, "state" varchar(32) not null, "latency_ms" int null, "guilds" int not null default 0, "last_ready" timestamptz null, "resumes" int not null default 0, "heartbeat_at" timestamptz not null)`,
		);
		this.addSql(`create table "fleet_identify" ("bucket" int primary key, "instance_id" varchar(64) not null, "until" timestamptz not null)`);
		this.addSql(
			`create table "fleet_jobs" ("job" varchar(64) primary key, "instance_id" varchar(64) not null, "last_run_at" timestamptz not null)`,
		);
	}

	override async down(): Promise<void> {
		this.addSql(`drop table if exists "fleet_jobs"`);
		this.addSql(`drop table if exists "fleet_identify"`);
		this.addSql(`drop table if exists "fleet_shards"`);
	}
}
