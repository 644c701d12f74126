// A fake Discord on loopback: REST (HTTP) and gateway (WebSocket, plain JSON) on one port, for the REAL discord.js
// client. Point a client at it with `new Client({ intents, rest: { api: fake.restUrl } })` and log in with `fake.token`.
//
//   const fake = await startFakeDiscord({ guilds: 2 });
//   const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.restUrl } });
//   const ready = once(client, Events.ClientReady);
//   await client.login(fake.token);
//   await ready;
//   const ix = fake.sendSlashCommand({ name: 'ping' });   // INTERACTION_CREATE in the first guild's #general
//   const callback = await ix.callback();                 // the recorded POST /interactions/:id/:token/callback
//   assert.equal(callback.body.data.flags, MessageFlags.Ephemeral);
//   await client.destroy(); await fake.close();           // destroy clients first, or they keep reconnecting
//
// Every REST request is recorded in `fake.requests` (path relative to /api/v10). Discord's rules that catch real bugs
// are enforced: an interaction must be answered within 3 s and only once (10062/40060), empty or over-long messages
// are refused (50006/50035), the bot can only post where its permissions allow (50013), closed DMs answer 50007,
// and guild message content is blanked without the MessageContent intent unless the bot is mentioned.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTick } from 'node:timers/promises';
import {
	ApplicationCommandType,
	ChannelType,
	GatewayDispatchEvents,
	GatewayIntentBits,
	GatewayOpcodes,
	InteractionResponseType,
	InteractionType,
	MessageFlags,
	MessageType,
	PermissionFlagsBits,
} from 'discord.js';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
	buildGuild,
	channelPayload,
	computePermissions,
	dmChannelPayload,
	guildCreatePayload,
	makeMessage,
	makeUser,
	nextSnowflake,
	shardOf,
	snowflakeAt,
	type FakeGuild,
	type FakeGuildSpec,
	type Json,
} from './fake-discord-data.ts';
import {
	componentPayload,
	contextMenuPayload,
	interactionToken,
	modalSubmitPayload,
	slashCommandPayload,
	type ComponentInput,
	type ContextMenuInput,
	type InteractionWorld,
	type ModalSubmitInput,
	type SlashCommandInput,
} from './fake-discord-interactions.ts';

export type { FakeChannelSpec, FakeGuild, FakeGuildSpec, FakeMemberSpec, FakeRoleSpec, Json } from './fake-discord-data.ts';
export type {
	ComponentInput,
	ContextMenuInput,
	InteractionWhere,
	ModalSubmitInput,
	OptionInput,
	SlashCommandInput,
} from './fake-discord-interactions.ts';
export { ALL_PERMISSIONS, shardOf, snowflakeAt } from './fake-discord-data.ts';

export interface FakeDiscordOptions {
	/** Bot token the client must log in with. Default: a token-shaped string for the application id. */
	token?: string;
	applicationId?: string;
	/** The bot user; its id defaults to the application id. */
	botUser?: { id?: string; username?: string };
	/** Owner of the application (GET /applications/@me). */
	ownerId?: string;
	/** Shards recommended by GET /gateway/bot (for `shards: 'auto'`). Default 1. */
	shardCount?: number;
	/** session_start_limit.max_concurrency. Default 16, so shards identify without discord.js's 5 s wait. */
	maxConcurrency?: number;
	/** Guild specs, or a number of guilds to generate lazily (cheap enough for 2,500 x 50). Default 1. */
	guilds?: FakeGuildSpec[] | number;
	/** Members per guild when a spec lists none (first is the owner, second a Moderator). Default 5. */
	membersPerGuild?: number;
	heartbeatIntervalMs?: number;
	/** Initial interaction responses later than this fail with 10062 Unknown interaction. Default 3000. */
	interactionTimeoutMs?: number;
}

export interface RecordedFile {
	field: string;
	name: string;
	contentType: string;
	data: Buffer;
}

export interface RecordedRequest {
	method: string;
	/** Path below the API version, e.g. `/channels/123/messages`. */
	path: string;
	query: Record<string, string>;
	/** Parsed JSON body, or the `payload_json` part of a multipart body. */
	body: any;
	files?: RecordedFile[];
	headers: IncomingMessage['headers'];
	/** Status the fake answered with. */
	status: number;
	at: number;
}

export type RequestMatcher = ((request: RecordedRequest) => boolean) | { method?: string; path?: string | RegExp };

export interface SentInteraction {
	id: string;
	token: string;
	/** The INTERACTION_CREATE payload as dispatched. */
	payload: Json;
	/** Wait for the interaction's callback (POST /interactions/:id/:token/callback). */
	callback(timeoutMs?: number): Promise<RecordedRequest>;
	/** Wait for an edit of the original response (PATCH /webhooks/:app/:token/messages/@original). */
	edit(timeoutMs?: number): Promise<RecordedRequest>;
	/** Wait for the n-th followup (POST /webhooks/:app/:token), counting from 0. */
	followup(index?: number, timeoutMs?: number): Promise<RecordedRequest>;
	/** Every request made so far for this interaction (callback and webhook calls). */
	requests(): RecordedRequest[];
}

export interface SendMessageInput {
	authorId: string;
	content: string;
	/** A guild channel or the author's DM channel; default: the guild's first text channel. */
	channelId?: string;
	guildId?: string;
	/** Send in the author's DM with the bot. */
	dm?: boolean;
	/** Prefix `<@bot>` (if missing) and list the bot in `mentions`. */
	mentionsBot?: boolean;
}

export interface SentMessage {
	message: Json;
	/** False when the client's intents exclude this event (GuildMessages / DirectMessages), as Discord would. */
	delivered: boolean;
}

interface Session {
	id: string;
	shardId: number;
	shardCount: number;
	seq: number;
	intents: number;
}

interface Connection {
	ws: WebSocket;
	session: Session | null;
}

interface ShardState {
	conn: Connection | null;
	identifies: number;
	resumes: number;
	down: boolean;
}

interface InteractionState {
	id: string;
	token: string;
	payload: Json;
	createdAt: number;
	acknowledged: boolean;
	original: Json | null;
}

interface Reply {
	status: number;
	body?: unknown;
}

interface RouteContext {
	params: Record<string, string>;
	query: URLSearchParams;
	body: any;
	files: RecordedFile[];
}

type Route = { method: string; pattern: RegExp; keys: string[]; auth: boolean; handle: (c: RouteContext) => Reply };

class DiscordHttpError extends Error {
	status: number;
	code: number;
	constructor(status: number, code: number, message: string) {
		super(message);
		this.status = status;
		this.code = code;
	}
}

const notFound = (code: number, what: string) => new DiscordHttpError(404, code, `Unknown ${what}`);
const invalidForm = (message: string) => new DiscordHttpError(400, 50035, `Invalid Form Body: ${message}`);
const ok = (body: unknown, status = 200): Reply => ({ status, body });
const noContent: Reply = { status: 204 };
const I = GatewayIntentBits;

/** Guilds by id: explicit ones built once, generated ones rebuilt on demand from their index (nothing big is kept). */
export class GuildDirectory {
	readonly ids: string[] = [];
	private readonly explicit = new Map<string, FakeGuild>();
	private readonly generated = new Map<string, number>();
	private readonly membersPerGuild: number;
	private readonly bot: Json;

	constructor(guilds: FakeGuildSpec[] | number, membersPerGuild: number, bot: Json) {
		this.membersPerGuild = membersPerGuild;
		this.bot = bot;
		if (typeof guilds === 'number') {
			for (let i = 0; i < guilds; i++) {
				const id = snowflakeAt(1_600_000_000_000 + i);
				this.generated.set(id, i);
				this.ids.push(id);
			}
		} else {
			guilds.forEach((spec, i) => {
				const guild = buildGuild(spec, i, membersPerGuild, bot);
				this.explicit.set(guild.id, guild);
				this.ids.push(guild.id);
			});
		}
	}

	get(id: string): FakeGuild | undefined {
		const index = this.generated.get(id);
		return this.explicit.get(id) ?? (index === undefined ? undefined : buildGuild({}, index, this.membersPerGuild, this.bot));
	}

	ofChannel(channelId: string): FakeGuild | undefined {
		for (const guild of this.explicit.values()) if (guild.channels.some((c) => c.id === channelId)) return guild;
		if (!/^\d{1,20}$/.test(channelId)) return undefined;
		// Generated channel ids share their guild's timestamp: clear the low 22 bits to get the guild id.
		const guildId = ((BigInt(channelId) >> 22n) << 22n).toString();
		return this.generated.has(guildId) ? this.get(guildId) : undefined;
	}

	explicitGuilds(): FakeGuild[] {
		return [...this.explicit.values()];
	}
}

export class FakeDiscord extends EventEmitter {
	readonly token: string;
	readonly applicationId: string;
	readonly bot: Json;
	readonly guilds: GuildDirectory;
	readonly requests: RecordedRequest[] = [];
	/** Gateway payloads received from clients (heartbeats excluded): presence updates, member requests ... */
	readonly gatewayReceived: Array<{ shardId: number | null; op: number; d: unknown; at: number }> = [];
	restUrl = '';
	gatewayUrl = '';
	/** Initial interaction responses later than this fail with 10062 (settable per test). */
	interactionTimeoutMs: number;

	private readonly options: Required<Pick<FakeDiscordOptions, 'shardCount' | 'maxConcurrency' | 'heartbeatIntervalMs'>>;
	private readonly ownerId: string | undefined;
	private readonly server: Server;
	private readonly wss = new WebSocketServer({ noServer: true });
	private readonly routes: Route[] = [];
	private readonly shards = new Map<number, ShardState>();
	private readonly sessions = new Map<string, Session>();
	private readonly users = new Map<string, Json>();
	private readonly dmChannels = new Map<string, Json>();
	private readonly dmsClosed = new Set<string>();
	private readonly messages = new Map<string, Json>();
	private readonly interactions = new Map<string, InteractionState>();
	private readonly commands = new Map<string, Json[]>();
	private readonly waiters = new Set<(error?: Error) => void>();
	private closed = false;

	constructor(options: FakeDiscordOptions = {}) {
		super();
		this.setMaxListeners(0); // every pending waitFor* listens to 'change'
		this.applicationId = options.applicationId ?? options.botUser?.id ?? nextSnowflake();
		this.token = options.token ?? `${Buffer.from(this.applicationId).toString('base64url')}.ZmFrZQ.${randomBytes(20).toString('base64url')}`;
		this.bot = makeUser(options.botUser?.id ?? this.applicationId, options.botUser?.username ?? 'Haven', true);
		this.ownerId = options.ownerId;
		this.options = {
			shardCount: options.shardCount ?? 1,
			maxConcurrency: options.maxConcurrency ?? 16,
			heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
		};
		this.interactionTimeoutMs = options.interactionTimeoutMs ?? 3_000;
		this.guilds = new GuildDirectory(options.guilds ?? 1, options.membersPerGuild ?? 5, this.bot);
		for (const guild of this.guilds.explicitGuilds()) for (const m of guild.members) this.users.set(m.user.id, m.user);
		this.users.set(this.bot.id, this.bot);
		this.server = createServer((req, res) => void this.onHttp(req, res));
		this.server.on('upgrade', (req, socket, head) => {
			this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req));
		});
		this.defineRoutes();
	}

	async listen(): Promise<this> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		const { port } = this.server.address() as AddressInfo;
		this.restUrl = `http://127.0.0.1:${port}/api`;
		this.gatewayUrl = `ws://127.0.0.1:${port}`;
		return this;
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		for (const fail of this.waiters) fail(new Error('fake-discord: closed'));
		for (const ws of this.wss.clients) ws.terminate();
		this.wss.close();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	// ----------------------------------------------------------------------------------------------------------------
	// World: lookups shared by REST, gateway and the interaction builders

	guild(id: string): FakeGuild | undefined {
		return this.guilds.get(id);
	}

	user(id: string): Json {
		return this.users.get(id) ?? makeUser(id);
	}

	/** The DM channel between the bot and a user (created on first use, as POST /users/@me/channels does). */
	dmChannel(userId: string): Json {
		let channel = this.dmChannels.get(userId);
		if (!channel) this.dmChannels.set(userId, (channel = dmChannelPayload(nextSnowflake(), this.user(userId))));
		return channel;
	}

	/** Simulate a user who does not accept DMs from the bot: posting to their DM channel answers 403, code 50007. */
	setDmsClosed(userId: string, closed = true): void {
		if (closed) this.dmsClosed.add(userId);
		else this.dmsClosed.delete(userId);
	}

	/** A message the fake knows: sent by the bot through REST or by a user through sendMessage. */
	message(id: string): Json | undefined {
		return this.messages.get(id);
	}

	/** Registered commands of a scope: `'global'` or a guild id. */
	registeredCommands(scope = 'global'): Json[] {
		return this.commands.get(scope) ?? [];
	}

	private world(): InteractionWorld {
		return {
			applicationId: this.applicationId,
			bot: this.bot,
			user: (id) => this.user(id),
			dmChannel: (id) => this.dmChannel(id),
			message: (id) => this.message(id),
			guild: (id) => this.guild(id),
			guildOfChannel: (id) => this.guilds.ofChannel(id),
			defaultGuild: () => (this.guilds.ids[0] === undefined ? undefined : this.guild(this.guilds.ids[0])),
			command: (name, type, guildId) =>
				[...(guildId ? this.registeredCommands(guildId) : []), ...this.registeredCommands()].find((c) => c.name === name && c.type === type),
		};
	}

	// ----------------------------------------------------------------------------------------------------------------
	// Requests and waiting

	clearRequests(): void {
		this.requests.length = 0;
	}

	/** The first recorded request matching, now or within `timeoutMs`. */
	waitForRequest(match: RequestMatcher, timeoutMs = 2_000): Promise<RecordedRequest> {
		const test =
			typeof match === 'function'
				? match
				: (r: RecordedRequest) =>
						(!match.method || r.method === match.method.toUpperCase()) &&
						(!match.path || (typeof match.path === 'string' ? r.path === match.path : match.path.test(r.path)));
		return this.waitUntil(
			() => this.requests.find(test),
			timeoutMs,
			() =>
				`a request matching ${typeof match === 'function' ? match.toString() : JSON.stringify({ ...match, path: String(match.path) })}; ` +
				`last seen: ${
					this.requests
						.slice(-8)
						.map((r) => `${r.method} ${r.path} ${r.status}`)
						.join(', ') || 'none'
				}`,
		);
	}

	/** Resolve once the shard has a live (identified or resumed) connection. */
	waitForShard(shardId: number, timeoutMs = 5_000): Promise<void> {
		return this.waitUntil(
			() => (this.connectedShards().includes(shardId) ? true : undefined),
			timeoutMs,
			() => `shard ${shardId}`,
		).then(() => undefined);
	}

	private waitUntil<T>(check: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
		const now = check();
		if (now !== undefined) return Promise.resolve(now);
		return new Promise<T>((resolve, reject) => {
			const finish = (error?: Error, value?: T) => {
				clearTimeout(timer);
				this.off('change', onChange);
				this.waiters.delete(finish);
				if (error) reject(error);
				else resolve(value as T);
			};
			const onChange = () => {
				const value = check();
				if (value !== undefined) finish(undefined, value);
			};
			const timer = setTimeout(() => finish(new Error(`fake-discord: timed out after ${timeoutMs} ms waiting for ${describe()}`)), timeoutMs);
			this.on('change', onChange);
			this.waiters.add(finish);
		});
	}

	// ----------------------------------------------------------------------------------------------------------------
	// Gateway control

	connectedShards(): number[] {
		return [...this.shards.entries()]
			.filter(([, s]) => s.conn?.session)
			.map(([id]) => id)
			.sort((a, b) => a - b);
	}

	identifyCount(shardId: number): number {
		return this.shards.get(shardId)?.identifies ?? 0;
	}

	resumeCount(shardId: number): number {
		return this.shards.get(shardId)?.resumes ?? 0;
	}

	/** Close the shard's socket with a resumable code (default 4000): the client reconnects and RESUMEs. */
	dropConnection(shardId: number, code = 4000): void {
		const state = this.shard(shardId);
		if (!state.conn) throw new Error(`fake-discord: shard ${shardId} is not connected`);
		state.conn.ws.close(code, 'fake-discord: connection dropped');
		state.conn = null;
		this.emit('change');
	}

	/** Send op 9 (d=false) and forget the session: the client must IDENTIFY again (discord.js waits ~5 s to re-identify). */
	invalidateSession(shardId: number): void {
		const conn = this.shard(shardId).conn;
		if (!conn?.session) throw new Error(`fake-discord: shard ${shardId} is not connected`);
		this.sessions.delete(conn.session.id);
		this.send(conn, { op: GatewayOpcodes.InvalidSession, d: false });
	}

	/** While down, the shard's connection is dropped and every IDENTIFY/RESUME for it is closed with 4000. */
	setShardDown(shardId: number, down: boolean): void {
		const state = this.shard(shardId);
		state.down = down;
		if (down && state.conn) this.dropConnection(shardId);
	}

	/** Send a dispatch (op 0). Default shard: the guild's (from `data.guild_id`), else 0 (where Discord sends DMs). */
	dispatch(event: string, data: Json, shardId?: number): void {
		const id = shardId ?? (typeof data.guild_id === 'string' ? this.shardOfGuild(data.guild_id) : 0);
		const conn = this.shards.get(id)?.conn;
		if (!conn?.session) throw new Error(`fake-discord: cannot dispatch ${event}: shard ${id} is not connected`);
		this.sendDispatch(conn, event, data);
	}

	private shard(id: number): ShardState {
		let state = this.shards.get(id);
		if (!state) this.shards.set(id, (state = { conn: null, identifies: 0, resumes: 0, down: false }));
		return state;
	}

	private shardOfGuild(guildId: string): number {
		const live = [...this.shards.values()].find((s) => s.conn?.session)?.conn?.session;
		return shardOf(guildId, live?.shardCount ?? this.options.shardCount);
	}

	/** The live session a guild's (or, without a guild, DM) events go to. */
	private sessionFor(guildId: string | undefined): Session {
		const shardId = guildId ? this.shardOfGuild(guildId) : 0;
		const session = this.shards.get(shardId)?.conn?.session;
		if (!session) throw new Error(`fake-discord: shard ${shardId} is not connected`);
		return session;
	}

	// ----------------------------------------------------------------------------------------------------------------
	// Users' actions: interactions and messages

	/** Dispatch an INTERACTION_CREATE (payload from a builder, or hand-made) and track its token for the callback. */
	sendInteraction(payload: Json): SentInteraction {
		const full: Json = { id: nextSnowflake(), token: interactionToken(), application_id: this.applicationId, version: 1, ...payload };
		const state: InteractionState = { id: full.id, token: full.token, payload: full, createdAt: Date.now(), acknowledged: false, original: null };
		this.interactions.set(full.token, state);
		this.dispatch(GatewayDispatchEvents.InteractionCreate, full);
		const webhook = `/webhooks/${this.applicationId}/${full.token}`;
		const mine = (r: RecordedRequest) => r.path.startsWith(webhook) || r.path === `/interactions/${full.id}/${full.token}/callback`;
		return {
			id: full.id,
			token: full.token,
			payload: full,
			callback: (timeoutMs) => this.waitForRequest({ method: 'POST', path: `/interactions/${full.id}/${full.token}/callback` }, timeoutMs),
			edit: (timeoutMs) => this.waitForRequest({ method: 'PATCH', path: `${webhook}/messages/@original` }, timeoutMs),
			followup: (index = 0, timeoutMs = 2_000) =>
				this.waitUntil(
					() => this.requests.filter((r) => r.method === 'POST' && r.path === webhook)[index],
					timeoutMs,
					() => `followup #${index} of interaction ${full.id}`,
				),
			requests: () => this.requests.filter(mine),
		};
	}

	/** A slash command (or, with `focused`, an autocomplete) in a guild channel or a DM. */
	sendSlashCommand(input: SlashCommandInput): SentInteraction {
		return this.sendInteraction(slashCommandPayload(this.world(), input));
	}

	/** A user or message context-menu command, with resolved target data. */
	sendContextMenu(input: ContextMenuInput): SentInteraction {
		return this.sendInteraction(contextMenuPayload(this.world(), input));
	}

	/** A button click (or a select menu with `componentType` and `values`) on a message. */
	sendComponent(input: ComponentInput): SentInteraction {
		return this.sendInteraction(componentPayload(this.world(), input));
	}

	sendButton(input: Omit<ComponentInput, 'componentType' | 'values'>): SentInteraction {
		return this.sendComponent(input);
	}

	sendModalSubmit(input: ModalSubmitInput): SentInteraction {
		return this.sendInteraction(modalSubmitPayload(this.world(), input));
	}

	/** A user's message (MESSAGE_CREATE) in a guild channel or in their DM with the bot. */
	sendMessage(input: SendMessageInput): SentMessage {
		const author = this.user(input.authorId);
		const dmChannel = this.dmChannels.get(author.id);
		const inDm = input.dm || (input.channelId !== undefined && input.channelId === dmChannel?.id);
		let content = input.content;
		const botMention = `<@${this.bot.id}>`;
		if (input.mentionsBot && !content.includes(botMention)) content = `${botMention} ${content}`;
		const mentionedIds = [...new Set([...content.matchAll(/<@!?(\d{17,20})>/g)].map((m) => m[1]!))];
		let fields: Json;
		let guild: FakeGuild | undefined;
		if (inDm) {
			fields = { channel_id: this.dmChannel(author.id).id, channel_type: ChannelType.DM, mentions: mentionedIds.map((id) => this.user(id)) };
		} else {
			guild =
				(input.guildId && this.guild(input.guildId)) ||
				(input.channelId && this.guilds.ofChannel(input.channelId)) ||
				this.world().defaultGuild();
			if (!guild) throw new Error('fake-discord: no guild for this message');
			const channel = input.channelId
				? guild.channels.find((c) => c.id === input.channelId)
				: guild.channels.find((c) => c.type === ChannelType.GuildText);
			if (!channel) throw new Error(`fake-discord: no channel ${input.channelId ?? '(text)'} in guild ${guild.id}`);
			const memberOf = (id: string) => guild!.members.find((m) => m.user.id === id);
			const strip = (member: Json | undefined) => (member ? { ...member, user: undefined } : undefined);
			fields = {
				channel_id: channel.id,
				channel_type: channel.type,
				guild_id: guild.id,
				member: strip(memberOf(author.id)) ?? { roles: [], joined_at: guild.joinedAt, deaf: false, mute: false, flags: 0 },
				mentions: mentionedIds.map((id) => ({ ...this.user(id), member: strip(memberOf(id)) })),
			};
		}
		const message = makeMessage({ ...fields, author, content });
		this.messages.set(message.id, message);
		const { intents } = this.sessionFor(guild?.id);
		if (!(intents & (guild ? I.GuildMessages : I.DirectMessages))) return { message, delivered: false };
		const blind = guild && !(intents & I.MessageContent) && !mentionedIds.includes(this.bot.id);
		this.dispatch(
			GatewayDispatchEvents.MessageCreate,
			blind ? { ...message, content: '', embeds: [], attachments: [], components: [] } : message,
		);
		return { message, delivered: true };
	}

	// ----------------------------------------------------------------------------------------------------------------
	// Gateway protocol

	private onConnection(ws: WebSocket, req: IncomingMessage): void {
		const conn: Connection = { ws, session: null };
		const url = new URL(req.url ?? '/', 'http://fake');
		ws.on('message', (data) => this.onGatewayMessage(conn, data));
		ws.on('close', (code) => {
			const state = conn.session && this.shards.get(conn.session.shardId);
			if (state?.conn === conn) state.conn = null;
			// A client closing with 1000/1001 ends its session (Discord's rule); other codes keep it resumable.
			if (conn.session && (code === 1000 || code === 1001)) this.sessions.delete(conn.session.id);
			this.emit('change');
		});
		ws.on('error', () => ws.terminate());
		if (url.searchParams.get('encoding') !== 'json' || url.searchParams.has('compress') || url.searchParams.get('v') !== '10') {
			// Only v10 plain JSON is spoken here (Haven asks for no compression, which would need the native zlib-sync package).
			ws.close(4012, 'fake-discord speaks only ?v=10&encoding=json without compression');
			return;
		}
		this.send(conn, { op: GatewayOpcodes.Hello, d: { heartbeat_interval: this.options.heartbeatIntervalMs, _trace: ['["fake-discord",{}]'] } });
	}

	private onGatewayMessage(conn: Connection, data: RawData): void {
		let payload: { op: number; d: any };
		try {
			payload = JSON.parse(data.toString());
		} catch {
			conn.ws.close(4002, 'Error while decoding payload.');
			return;
		}
		if (payload.op !== GatewayOpcodes.Heartbeat) {
			this.gatewayReceived.push({ shardId: conn.session?.shardId ?? null, op: payload.op, d: payload.d, at: Date.now() });
		}
		switch (payload.op) {
			case GatewayOpcodes.Heartbeat:
				this.send(conn, { op: GatewayOpcodes.HeartbeatAck });
				return;
			case GatewayOpcodes.Identify:
				this.identify(conn, payload.d);
				return;
			case GatewayOpcodes.Resume:
				this.resume(conn, payload.d);
				return;
			case GatewayOpcodes.RequestGuildMembers:
				if (conn.session) this.requestGuildMembers(conn, payload.d);
				break;
		}
		if (!conn.session) conn.ws.close(4003, 'Not authenticated.');
	}

	private identify(conn: Connection, d: any): void {
		if (conn.session) return conn.ws.close(4005, 'Already authenticated.');
		if (d?.token !== this.token) return conn.ws.close(4004, 'Authentication failed.');
		const [shardId, shardCount] = (d.shard ?? [0, 1]) as [number, number];
		if (!(shardId >= 0 && shardId < shardCount)) return conn.ws.close(4010, 'Invalid shard.');
		const state = this.shard(shardId);
		if (state.down) return conn.ws.close(4000, 'fake-discord: shard is down');
		state.identifies++;
		const session: Session = { id: randomBytes(16).toString('hex'), shardId, shardCount, seq: 0, intents: Number(d.intents ?? 0) };
		this.sessions.set(session.id, session);
		conn.session = session;
		state.conn = conn;
		const guildIds = this.guilds.ids.filter((id) => shardOf(id, shardCount) === shardId);
		this.sendDispatch(conn, GatewayDispatchEvents.Ready, {
			v: 10,
			user_settings: {},
			user: { ...this.bot, verified: true, mfa_enabled: false, flags: 0, email: null },
			guilds: guildIds.map((id) => ({ id, unavailable: true })),
			relationships: [],
			private_channels: [],
			presences: [],
			guild_join_requests: [],
			geo_ordered_rtc_regions: ['local'],
			session_type: 'normal',
			session_id: session.id,
			resume_gateway_url: this.gatewayUrl,
			shard: [shardId, shardCount],
			application: { id: this.applicationId, flags: 0 },
			_trace: ['["fake-discord",{}]'],
		});
		this.emit('change');
		void this.streamGuilds(conn, guildIds, Number(d.large_threshold ?? 50));
	}

	/** GUILD_CREATE for each guild of the shard, in batches so thousands of guilds do not block the event loop. */
	private async streamGuilds(conn: Connection, guildIds: string[], largeThreshold: number): Promise<void> {
		for (let i = 0; i < guildIds.length; i++) {
			if (i % 50 === 0 && i > 0) await nextTick();
			if (this.closed || conn.ws.readyState !== conn.ws.OPEN) return;
			const guild = this.guild(guildIds[i]!);
			if (guild) this.sendDispatch(conn, GatewayDispatchEvents.GuildCreate, guildCreatePayload(guild, largeThreshold));
		}
	}

	private resume(conn: Connection, d: any): void {
		const session = this.sessions.get(d?.session_id);
		if (!session || d.token !== this.token) {
			this.send(conn, { op: GatewayOpcodes.InvalidSession, d: false });
			return;
		}
		const state = this.shard(session.shardId);
		if (state.down) return conn.ws.close(4000, 'fake-discord: shard is down');
		state.resumes++;
		conn.session = session;
		state.conn = conn;
		this.sendDispatch(conn, GatewayDispatchEvents.Resumed, { _trace: ['["fake-discord",{}]'] });
		this.emit('change');
	}

	private requestGuildMembers(conn: Connection, d: any): void {
		for (const guildId of [d.guild_id].flat() as string[]) {
			const guild = this.guild(guildId);
			if (!guild) continue;
			const userIds: string[] | undefined = d.user_ids === undefined ? undefined : [d.user_ids].flat();
			const query = String(d.query ?? '').toLowerCase();
			let members = guild.members.filter((m) => (userIds ? userIds.includes(m.user.id) : m.user.username.startsWith(query)));
			if (!userIds && d.limit) members = members.slice(0, d.limit);
			const notFound = userIds?.filter((id) => !members.some((m) => m.user.id === id)) ?? [];
			const chunkCount = Math.max(1, Math.ceil(members.length / 1000));
			for (let i = 0; i < chunkCount; i++) {
				this.sendDispatch(conn, GatewayDispatchEvents.GuildMembersChunk, {
					guild_id: guild.id,
					members: members.slice(i * 1000, (i + 1) * 1000),
					chunk_index: i,
					chunk_count: chunkCount,
					not_found: i === 0 ? notFound : [],
					nonce: d.nonce,
				});
			}
		}
	}

	private sendDispatch(conn: Connection, t: string, d: unknown): void {
		const session = conn.session!;
		this.send(conn, { op: GatewayOpcodes.Dispatch, t, s: ++session.seq, d });
	}

	private send(conn: Connection, payload: Json): void {
		if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(payload));
	}

	// ----------------------------------------------------------------------------------------------------------------
	// REST plumbing

	private async onHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://fake');
		const method = req.method ?? 'GET';
		const underApi = /^\/api\/v10\//.test(url.pathname);
		const path = decodeURIComponent(underApi ? url.pathname.slice('/api/v10'.length) : url.pathname);
		const record: RecordedRequest = {
			method,
			path,
			query: Object.fromEntries(url.searchParams),
			body: undefined,
			headers: req.headers,
			status: 0,
			at: Date.now(),
		};
		let reply: Reply;
		try {
			const { body, files } = await readBody(req);
			record.body = body;
			if (files.length) record.files = files;
			if (!underApi) throw new DiscordHttpError(404, 0, '404: Not Found');
			reply = this.route(method, path, { params: {}, query: url.searchParams, body, files }, req.headers.authorization);
		} catch (error) {
			const e = error instanceof DiscordHttpError ? error : new DiscordHttpError(500, 0, `fake-discord: ${String(error)}`);
			reply = { status: e.status, body: { message: e.message, code: e.code } };
		}
		record.status = reply.status;
		this.requests.push(record);
		this.emit('request', record);
		this.emit('change');
		if (reply.body === undefined) {
			res.writeHead(reply.status).end();
		} else {
			res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
		}
	}

	private route(method: string, path: string, ctx: RouteContext, authorization: string | undefined): Reply {
		for (const route of this.routes) {
			if (route.method !== method) continue;
			const match = route.pattern.exec(path);
			if (!match) continue;
			if (route.auth && authorization !== `Bot ${this.token}`) throw new DiscordHttpError(401, 0, '401: Unauthorized');
			route.keys.forEach((key, i) => (ctx.params[key] = match[i + 1]!));
			return route.handle(ctx);
		}
		throw new DiscordHttpError(404, 0, '404: Not Found');
	}

	private addRoute(method: string, path: string, handle: (c: RouteContext) => Reply, auth = true): void {
		const keys: string[] = [];
		const source = path.replace(/[.@]/g, '\\$&').replace(/:(\w+)/g, (_, key: string) => (keys.push(key), '([^/]+)'));
		this.routes.push({ method, pattern: new RegExp(`^${source}$`), keys, auth, handle });
	}

	// ----------------------------------------------------------------------------------------------------------------
	// REST routes

	private defineRoutes(): void {
		const r = this.addRoute.bind(this);
		// Gateway and identity
		r('GET', '/gateway', () => ok({ url: this.gatewayUrl }), false);
		r('GET', '/gateway/bot', () =>
			ok({
				url: this.gatewayUrl,
				shards: this.options.shardCount,
				session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: this.options.maxConcurrency },
			}),
		);
		r('GET', '/users/@me', () => ok({ ...this.bot, verified: true, mfa_enabled: false, flags: 0 }));
		r('GET', '/users/:user', ({ params }) => ok(this.user(params.user!)));
		r('GET', '/applications/@me', () => ok(this.application()));
		r('GET', '/oauth2/applications/@me', () => ok(this.application()));
		r('POST', '/users/@me/channels', ({ body }) => {
			if (!body?.recipient_id) throw invalidForm('recipient_id is required');
			return ok(this.dmChannel(String(body.recipient_id)));
		});

		// Application commands, global and per guild
		for (const prefix of ['/applications/:app/commands', '/applications/:app/guilds/:guild/commands']) {
			const scope = (p: Record<string, string>) => {
				if (p.app !== this.applicationId) throw new DiscordHttpError(403, 50001, 'Missing Access');
				if (p.guild && !this.guild(p.guild)) throw new DiscordHttpError(403, 50001, 'Missing Access');
				return p.guild ?? 'global';
			};
			const find = (p: Record<string, string>) => {
				const command = this.registeredCommands(scope(p)).find((c) => c.id === p.command);
				if (!command) throw notFound(10063, 'application command');
				return command;
			};
			r('GET', prefix, ({ params }) => ok(this.registeredCommands(scope(params))));
			r('PUT', prefix, ({ params, body }) => ok(this.overwriteCommands(scope(params), body)));
			r('POST', prefix, ({ params, body }) => this.upsertCommand(scope(params), body));
			r('GET', `${prefix}/:command`, ({ params }) => ok(find(params)));
			r('PATCH', `${prefix}/:command`, ({ params, body }) => {
				const old = find(params);
				return this.upsertCommand(scope(params), { ...old, ...body, id: old.id });
			});
			r('DELETE', `${prefix}/:command`, ({ params }) => {
				const old = find(params);
				this.commands.set(
					scope(params),
					this.registeredCommands(scope(params)).filter((c) => c !== old),
				);
				return noContent;
			});
		}

		// Interactions: callback and the interaction webhook
		r('POST', '/interactions/:id/:token/callback', (c) => this.interactionCallback(c), false);
		const webhook = '/webhooks/:app/:token';
		r('POST', webhook, (c) => this.followup(c), false);
		for (const method of ['GET', 'PATCH', 'DELETE']) {
			r(method, `${webhook}/messages/:message`, (c) => this.webhookMessage(method, c), false);
		}

		// Channels and messages
		r('GET', '/channels/:channel', ({ params }) => ok(this.channel(params.channel!)));
		r('POST', '/channels/:channel/typing', ({ params }) => (this.channel(params.channel!), noContent));
		r('POST', '/channels/:channel/messages', ({ params, body, files }) => {
			const channel = this.channel(params.channel!);
			this.checkCanSend(channel);
			const message = this.botMessage(channel.id, body, files);
			return ok(message);
		});
		r('GET', '/channels/:channel/messages/:message', ({ params }) => ok(this.channelMessage(params)));
		r('PATCH', '/channels/:channel/messages/:message', ({ params, body, files }) => {
			const message = this.channelMessage(params);
			if (message.author.id !== this.bot.id) throw new DiscordHttpError(403, 50005, 'Cannot edit a message authored by another user');
			return ok(this.editMessage(message, body, files));
		});
		r('DELETE', '/channels/:channel/messages/:message', ({ params }) => {
			this.messages.delete(this.channelMessage(params).id);
			return noContent;
		});
		r('PUT', '/channels/:channel/messages/:message/reactions/:emoji/@me', ({ params }) => (this.channelMessage(params), noContent));

		// Guilds
		const guild = (id: string) =>
			this.guild(id) ??
			(() => {
				throw notFound(10004, 'Guild');
			})();
		r('GET', '/guilds/:guild', ({ params }) => {
			const { members, channels: _channels, ...rest } = guildCreatePayload(guild(params.guild!));
			return ok({ ...rest, approximate_member_count: members.length });
		});
		r('GET', '/guilds/:guild/channels', ({ params }) => {
			const g = guild(params.guild!);
			return ok(g.channels.map((c) => channelPayload(g, c)));
		});
		r('GET', '/guilds/:guild/roles', ({ params }) => ok(guild(params.guild!).roles));
		// The bot leaves a server: Discord then sends GUILD_DELETE (not unavailable) to the guild's shard.
		r('DELETE', '/users/@me/guilds/:guild', ({ params }) => {
			const id = guild(params.guild!).id;
			this.dispatch(GatewayDispatchEvents.GuildDelete, { id, unavailable: false });
			return noContent;
		});
		r('GET', '/guilds/:guild/members', ({ params, query }) => {
			const after = BigInt(query.get('after') ?? 0);
			const limit = Number(query.get('limit') ?? 1);
			return ok(
				guild(params.guild!)
					.members.filter((m) => BigInt(m.user.id) > after)
					.slice(0, limit),
			);
		});
		r('GET', '/guilds/:guild/members/:user', ({ params }) => {
			const member = guild(params.guild!).members.find((m) => m.user.id === params.user);
			if (!member) throw notFound(10007, 'Member');
			return ok(member);
		});
	}

	private application(): Json {
		return {
			id: this.applicationId,
			name: this.bot.username,
			icon: null,
			description: '',
			summary: '',
			type: null,
			bot_public: false,
			bot_require_code_grant: false,
			verify_key: 'f'.repeat(64),
			flags: 0,
			bot: this.bot,
			team: null,
			owner: this.ownerId ? this.user(this.ownerId) : makeUser(snowflakeAt(1_450_000_000_000), 'owner'),
			approximate_guild_count: this.guilds.ids.length,
			integration_types_config: { 0: {} },
		};
	}

	// Commands ---------------------------------------------------------------------------------------------------------

	private normalizeCommand(scope: string, body: Json, existing: Json | undefined): Json {
		const type = body?.type ?? ApplicationCommandType.ChatInput;
		const name = String(body?.name ?? '');
		const chatInput = type === ApplicationCommandType.ChatInput;
		if (!(chatInput ? /^[-_\p{Ll}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u : /^.{1,32}$/u).test(name)) throw invalidForm(`name "${name}" is invalid`);
		const description = String(body.description ?? '');
		if (chatInput ? description.length < 1 || description.length > 100 : description !== '')
			throw invalidForm(`description of ${name} is invalid`);
		const command: Json = {
			id: existing?.id ?? nextSnowflake(),
			application_id: this.applicationId,
			version: '',
			default_member_permissions: body.default_member_permissions ?? null,
			type,
			name,
			name_localizations: body.name_localizations ?? null,
			description,
			description_localizations: body.description_localizations ?? null,
			...(body.options?.length ? { options: body.options } : {}),
			contexts: body.contexts ?? null,
			integration_types: body.integration_types ?? [0],
			nsfw: body.nsfw ?? false,
			...(scope === 'global' ? { dm_permission: body.dm_permission ?? true } : { guild_id: scope }),
		};
		const same = existing && JSON.stringify({ ...existing, version: '' }) === JSON.stringify(command);
		command.version = same ? existing.version : nextSnowflake();
		return command;
	}

	private overwriteCommands(scope: string, body: unknown): Json[] {
		if (!Array.isArray(body)) throw invalidForm('expected an array of commands');
		const old = this.registeredCommands(scope);
		const next = body.map((c: Json) =>
			this.normalizeCommand(
				scope,
				c,
				old.find((o) => o.name === c.name && o.type === (c.type ?? 1)),
			),
		);
		if (new Set(next.map((c) => `${c.type}:${c.name}`)).size !== next.length) throw invalidForm('application command names must be unique');
		this.commands.set(scope, next);
		return next;
	}

	private upsertCommand(scope: string, body: Json): Reply {
		const list = this.registeredCommands(scope);
		const old = list.find((c) => c.id === body?.id) ?? list.find((c) => c.name === body?.name && c.type === (body?.type ?? 1));
		const command = this.normalizeCommand(scope, body, old);
		this.commands.set(scope, old ? list.map((c) => (c === old ? command : c)) : [...list, command]);
		return ok(command, old ? 200 : 201);
	}

	// Interactions -----------------------------------------------------------------------------------------------------

	private interactionCallback({ params, body, files, query }: RouteContext): Reply {
		const ix = this.interactions.get(params.token!);
		if (!ix || ix.id !== params.id || Date.now() - ix.createdAt > this.interactionTimeoutMs) throw notFound(10062, 'interaction');
		if (ix.acknowledged) throw new DiscordHttpError(400, 40060, 'Interaction has already been acknowledged.');
		const T = InteractionResponseType;
		const kind = ix.payload.type;
		const isComponent = kind === InteractionType.MessageComponent || (kind === InteractionType.ModalSubmit && ix.payload.message);
		switch (body?.type) {
			case T.ChannelMessageWithSource:
				ix.original = this.botMessage(ix.payload.channel_id, body.data ?? {}, files, ix);
				break;
			case T.DeferredChannelMessageWithSource:
				ix.original = this.botMessage(ix.payload.channel_id, { flags: (body.data?.flags ?? 0) | MessageFlags.Loading }, [], ix, false);
				break;
			case T.DeferredMessageUpdate:
			case T.UpdateMessage:
				if (!isComponent) throw new DiscordHttpError(400, 50035, 'Invalid Form Body: interaction has no message to update');
				ix.original = this.messages.get(ix.payload.message.id) ?? ix.payload.message;
				if (body.type === T.UpdateMessage) ix.original = this.editMessage(ix.original!, body.data ?? {}, files);
				break;
			case T.ApplicationCommandAutocompleteResult:
				if (kind !== InteractionType.ApplicationCommandAutocomplete) throw invalidForm('not an autocomplete interaction');
				break;
			case T.Modal:
				if (kind === InteractionType.ModalSubmit || kind === InteractionType.ApplicationCommandAutocomplete)
					throw invalidForm('cannot open a modal here');
				break;
			default:
				if (typeof body?.type !== 'number') throw invalidForm('type is required');
		}
		ix.acknowledged = true;
		if (query.get('with_response') !== 'true') return noContent;
		const message = ix.original && body.type !== T.DeferredMessageUpdate ? ix.original : undefined;
		return ok({
			interaction: {
				id: ix.id,
				type: kind,
				activity_instance_id: null,
				response_message_id: message?.id ?? null,
				response_message_loading: message ? (message.flags & MessageFlags.Loading) !== 0 : null,
				response_message_ephemeral: message ? (message.flags & MessageFlags.Ephemeral) !== 0 : null,
			},
			resource: { type: body.type, ...(message ? { message } : {}) },
		});
	}

	private webhookInteraction(params: Record<string, string>): InteractionState {
		const ix = this.interactions.get(params.token!);
		if (params.app !== this.applicationId || !ix || !ix.acknowledged) throw notFound(10015, 'Webhook');
		return ix;
	}

	private followup({ params, body, files }: RouteContext): Reply {
		const ix = this.webhookInteraction(params);
		return ok(this.botMessage(ix.payload.channel_id, body ?? {}, files, ix));
	}

	private webhookMessage(method: string, { params, body, files }: RouteContext): Reply {
		const ix = this.webhookInteraction(params);
		const message = params.message === '@original' ? ix.original : this.messages.get(params.message!);
		if (!message || (message.webhook_id !== this.applicationId && message !== ix.original)) throw notFound(10008, 'Message');
		if (method === 'GET') return ok(message);
		if (method === 'DELETE') {
			this.messages.delete(message.id);
			if (message === ix.original) ix.original = null;
			return noContent;
		}
		const edited = this.editMessage(message, body ?? {}, files);
		if (message === ix.original) ix.original = edited;
		return ok(edited);
	}

	// Channels and messages --------------------------------------------------------------------------------------------

	private channel(id: string): Json {
		for (const channel of this.dmChannels.values()) if (channel.id === id) return channel;
		const guild = this.guilds.ofChannel(id);
		const channel = guild?.channels.find((c) => c.id === id);
		if (!guild || !channel) throw notFound(10003, 'Channel');
		return channelPayload(guild, channel);
	}

	private checkCanSend(channel: Json): void {
		if (channel.type === ChannelType.DM) {
			if (this.dmsClosed.has(channel.recipients[0].id)) throw new DiscordHttpError(403, 50007, 'Cannot send messages to this user');
			return;
		}
		const guild = this.guild(channel.guild_id)!;
		const botMember = guild.members.find((m) => m.user.id === this.bot.id)!;
		const perms = computePermissions(guild, botMember, channel);
		const needed = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages;
		if ((perms & needed) !== needed) throw new DiscordHttpError(403, 50013, 'Missing Permissions');
	}

	private channelMessage(params: Record<string, string>): Json {
		const message = this.messages.get(params.message!);
		if (!message || message.channel_id !== params.channel) throw notFound(10008, 'Message');
		return message;
	}

	/** A message from the bot (REST, interaction response or followup), validated like Discord does. */
	private botMessage(channelId: string, body: Json, files: RecordedFile[], ix?: InteractionState, validate = true): Json {
		if (validate) validateMessage(body, files, false);
		const command = ix?.payload.type === InteractionType.ApplicationCommand ? ix.payload.data : undefined;
		const type = !ix
			? body.message_reference
				? MessageType.Reply
				: MessageType.Default
			: command?.type === ApplicationCommandType.ChatInput
				? MessageType.ChatInputCommand
				: command
					? MessageType.ContextMenuCommand
					: MessageType.Default;
		const interactionFields = ix
			? {
					webhook_id: this.applicationId,
					application_id: this.applicationId,
					interaction_metadata: {
						id: ix.id,
						type: ix.payload.type,
						user: ix.payload.member?.user ?? ix.payload.user,
						authorizing_integration_owners: ix.payload.authorizing_integration_owners,
						...(command ? { name: command.name, command_type: command.type } : {}),
					},
				}
			: {};
		const message = makeMessage({
			channel_id: channelId,
			author: this.bot,
			type,
			...messageFields(body, files, channelId),
			...interactionFields,
			...(body.message_reference ? { message_reference: { type: 0, channel_id: channelId, ...body.message_reference } } : {}),
		});
		this.messages.set(message.id, message);
		return message;
	}

	private editMessage(message: Json, body: Json, files: RecordedFile[]): Json {
		validateMessage(body, files, true);
		const wasLoading = (message.flags & MessageFlags.Loading) !== 0;
		const fields = messageFields(body, files, message.channel_id);
		const edited: Json = {
			...message,
			...fields,
			attachments: [...(body.attachments ? [] : message.attachments), ...fields.attachments],
			flags: ((fields.flags ?? message.flags) & ~MessageFlags.Loading) | (message.flags & MessageFlags.Ephemeral),
			edited_timestamp: wasLoading ? null : new Date().toISOString(),
		};
		this.messages.set(edited.id, edited);
		return edited;
	}
}

/** Content fields a bot can set on a message, as Discord echoes them back. */
function messageFields(body: Json, files: RecordedFile[], channelId: string): Json {
	const fields: Json = { attachments: [] as Json[] };
	for (const key of ['content', 'embeds', 'components', 'tts', 'poll', 'sticker_items']) if (body[key] !== undefined) fields[key] = body[key];
	if (body.flags !== undefined) fields.flags = Number(body.flags);
	fields.attachments = files.map((file) => {
		const id = nextSnowflake();
		const url = `https://cdn.discordapp.com/attachments/${channelId}/${id}/${encodeURIComponent(file.name)}`;
		return {
			id,
			filename: file.name,
			size: file.data.length,
			url,
			proxy_url: url.replace('cdn.discordapp.com', 'media.discordapp.net'),
			content_type: file.contentType,
		};
	});
	return fields;
}

function validateMessage(body: Json, files: RecordedFile[], edit: boolean): void {
	if (typeof body.content === 'string' && body.content.length > 2000) throw invalidForm('content: Must be 2000 or fewer in length.');
	if (Array.isArray(body.embeds) && body.embeds.length > 10) throw invalidForm('embeds: Must be 10 or fewer in length.');
	const empty = !body.content && !body.embeds?.length && !body.components?.length && !files.length && !body.sticker_ids?.length && !body.poll;
	if (!edit && empty) throw new DiscordHttpError(400, 50006, 'Cannot send an empty message');
}

/** JSON or multipart (payload_json + files[n]) request bodies. */
async function readBody(req: IncomingMessage): Promise<{ body: any; files: RecordedFile[] }> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const raw = Buffer.concat(chunks);
	const type = req.headers['content-type'] ?? '';
	if (!raw.length) return { body: undefined, files: [] };
	if (type.startsWith('multipart/form-data')) {
		const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
		let body: any = {};
		const files: RecordedFile[] = [];
		for (const [field, value] of form) {
			if (typeof value === 'string') {
				if (field === 'payload_json') body = { ...body, ...JSON.parse(value) };
				else body[field] = value;
			} else {
				files.push({ field, name: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
			}
		}
		return { body, files };
	}
	try {
		return { body: JSON.parse(raw.toString('utf8')), files: [] };
	} catch {
		throw new DiscordHttpError(400, 50109, 'The request body contains invalid JSON.');
	}
}

/** Start a fake Discord on a free loopback port. */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
	return new FakeDiscord(options).listen();
}
