import { Routes, type Client } from 'discord.js';
import type { Config } from '../core/config.ts';
import type { Database } from '../db/index.ts';
import { collectDefinitions } from './definitions.ts';
import { deployCommands, describeDeploy, type DeployResult } from './deploy.ts';
import { syncGuilds } from './guilds.ts';
import { runFleetJob, type Fleet } from '../fleet/fleet.ts';
import { createIntegration, INTEGRATION_INTERVAL_MS, type Integration } from '../operations/bot-list.ts';
import { createLogChannel, type LogChannel } from '../operations/log-channel.ts';
import { NO_MENTIONS } from './reply.ts';
import { createReleaseChecker, describeReleaseCheck, type ReleaseChecker } from '../operations/release-check.ts';
import { describeError } from './interaction-errors.ts';

/**
 * The bot's services around the Sapphire client, created by startHaven when TOKEN and CLIENT_ID are set:
 * registration at startup, the release check, the LOG_CHANNEL_ID system log, the bot-list integration and the
 * guild table. Listeners reach it as `container.bot`; startHaven stops it before destroying the client.
 */

export interface BotLog {
	info(message: string): void;
	warn(message: string): void;
	error(message: string): void;
	debug(message: string): void;
}

export interface Bot {
	readonly release: ReleaseChecker;
	readonly logChannel: LogChannel | undefined;
	readonly integration: Integration | undefined;
	/** A system event: to the process log and, when LOG_CHANNEL_ID is set, to that channel. No user content. */
	systemLog(line: string): void;
	/** Command registration at startup; a failure is logged, never thrown (the previous registration stays). */
	deploy(): Promise<DeployResult | undefined>;
	/** Once the client is ready: startup line, integration, guild table. */
	ready(client: Client<true>): Promise<void>;
	/** Resolves when `ready` has done its work. */
	readonly readied: Promise<void>;
	/** Shard and guild counts, for logs and the integration. */
	counts(): { guilds: number; shards: number };
	stop(): Promise<void>;
}

export interface BotOptions {
	client: Client;
	config: Config;
	db: Database;
	version: string;
	log: BotLog;
	/** The fleet (src/lib/fleet), once started: counts cover every instance, fleet-wide jobs run on one. */
	fleet?: () => Fleet | undefined;
}

/** The release check at ready runs on one instance of a fleet per this period. */
const RELEASE_CHECK_PERIOD_MS = 15 * 60_000;

export function createBot({ client, config, db, version, log, fleet }: BotOptions): Bot {
	const release = createReleaseChecker({ running: version, repo: config.github.repo, apiUrl: config.github.apiUrl, token: config.github.token });
	const channelId = config.discord.logChannelId;
	const logChannel = channelId
		? createLogChannel({
				send: async (content) =>
					void (await client.rest.post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: NO_MENTIONS } })),
				log,
			})
		: undefined;
	// This process's servers and shards, or the fleet's when it is larger than this process.
	const counts = () => {
		const own = { guilds: client.guilds.cache.size, shards: client.ws.shards.size };
		const shared = fleet?.();
		if (!shared) return own;
		return { guilds: shared.guilds(own.guilds) ?? own.guilds, shards: Math.max(own.shards, Number(client.options.shardCount) || 0) };
	};
	const exclusive = <T>(job: string, periodMs: number, work: () => Promise<T>): Promise<T | undefined> => {
		const shared = fleet?.();
		if (!shared || shared.alone()) return work();
		return runFleetJob(db.orm, { job, instanceId: shared.instanceId, periodMs }, work).then((run) => (run.ran ? run.result : undefined));
	};
	let integration: Integration | undefined;
	const { token: integrationToken, baseUrl } = config.integration;
	if (integrationToken && !baseUrl) log.warn('INTEGRATION_TOKEN is set without INTEGRATION_BASE_URL: the bot-list integration is off');
	if (integrationToken && baseUrl) {
		integration = createIntegration({
			baseUrl,
			token: integrationToken,
			clientId: config.discord.clientId!,
			counts: () => ({ server_count: counts().guilds, shard_count: counts().shards }),
			log,
			exclusive: (post) => exclusive('bot-list-post', INTEGRATION_INTERVAL_MS, post),
		});
	}
	let releaseCheck: Promise<void> | undefined;
	let readied!: () => void;
	const readiedPromise = new Promise<void>((resolve) => (readied = resolve));

	let stopped = false;
	const systemLog = (line: string) => {
		if (stopped) return; // shutting down: the client's own disconnects are not news
		log.info(line);
		logChannel?.post(line);
	};

	return {
		release,
		logChannel,
		integration,
		systemLog,
		counts,
		readied: readiedPromise,
		async deploy() {
			try {
				const result = await deployCommands({
					rest: client.rest,
					applicationId: config.discord.clientId!,
					privateGuildId: config.discord.privateGuildId,
					definitions: await collectDefinitions(),
					force: config.discord.forceDeploy,
					db,
				});
				for (const warning of result.warnings) log.warn(warning);
				for (const line of describeDeploy(result)) log.info(line);
				return result;
			} catch (error) {
				log.error(
					`Command registration failed; the previous registration stays in place and the next start tries again: ${describeError(error)}${error instanceof Error && 'status' in error ? ` (${error.message})` : ''}`,
				);
				return undefined;
			}
		},
		async ready(ready) {
			const { guilds, shards } = counts();
			systemLog(
				`Haven ${version} is online as ${ready.user.username}: ${guilds} server${guilds === 1 ? '' : 's'}, ${shards} shard${shards === 1 ? '' : 's'}.`,
			);
			releaseCheck ??= exclusive('release-check', RELEASE_CHECK_PERIOD_MS, () => release.check()).then(
				(check) => check && log.info(describeReleaseCheck(check)),
				() => undefined,
			);
			integration?.start();
			try {
				const shardIds = Array.isArray(ready.options.shards) ? ready.options.shards : undefined;
				const shardCount = Number(ready.options.shardCount) || 0;
				await syncGuilds(
					db.orm.em.fork(),
					[...ready.guilds.cache.keys()],
					new Date(),
					shardIds && shardCount ? { shardCount, shardIds } : undefined,
				);
			} catch (error) {
				log.warn(`Could not record the server list: ${describeError(error)}`);
			} finally {
				readied();
			}
		},
		async stop() {
			stopped = true;
			logChannel?.stop();
			await integration?.stop();
			await releaseCheck;
		},
	};
}
