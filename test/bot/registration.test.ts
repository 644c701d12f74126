// Command registration across restarts and from the CLI, on one fake Discord and one database: deployed at the first
// start, skipped when nothing changed, forced by SERVICE_FORCE_DEPLOY and by `haven deploy-commands --force` (a
// child process), and moved when PRIVATE_GUILD_ID changes (owner commands removed from the old guild).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { AppState } from '../../src/lib/db/index.ts';
import { COMMANDS_HASH_KEY } from '../../src/lib/discord/deploy.ts';
import { startBotWorld, type BotWorld } from './support.ts';

const run = promisify(execFile);
let world: BotWorld;

before(async () => {
	world = await startBotWorld({ fake: { guilds: 3 } });
});

after(async () => {
	await world?.close();
});

const commandRequests = () => world.fake.requests.filter((r) => r.path.includes('/commands')).map((r) => `${r.method} ${scope(r.path)}`);
const scope = (path: string) => (path.includes('/guilds/') ? `guild:${path.split('/')[4]}` : 'global');

/** The same database for the CLI: the URL, or for the embedded server the Unix socket it listens on. */
function cliDatabaseUrl(): string {
	if (world.env.DATABASE_URL) return world.env.DATABASE_URL;
	const config = world.haven.db.orm.config;
	return `postgresql://${config.get('user')}@${encodeURIComponent(String(config.get('host')))}:${config.get('port')}/${config.get('dbName')}`;
}

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
	return run(process.execPath, ['src/cli/haven.ts', 'deploy-commands', ...args], {
		env: { ...process.env, ...world.env, DATABASE_URL: cliDatabaseUrl(), LOG_LEVEL: 'error' } as NodeJS.ProcessEnv,
		cwd: new URL('../../', import.meta.url),
		timeout: 20_000,
	});
}

describe('registration', () => {
	test('first start: GET then PUT, global and private guild', () => {
		assert.deepEqual(commandRequests(), ['GET global', 'PUT global', `GET guild:${world.privateGuildId}`, `PUT guild:${world.privateGuildId}`]);
	});

	test('restart with unchanged definitions: nothing sent to Discord', async () => {
		world.fake.clearRequests();
		await world.restart();
		assert.deepEqual(commandRequests(), []);
		assert.ok(
			world.fake.requests.some((r) => r.path === '/gateway/bot'),
			'it did log in',
		);
	});

	test('SERVICE_FORCE_DEPLOY: registers again; Discord reports nothing changed', async () => {
		world.fake.clearRequests();
		const globalIds = world.fake.registeredCommands().map((c) => c.id);
		await world.restart({ SERVICE_FORCE_DEPLOY: 'true' });
		assert.deepEqual(commandRequests(), ['GET global', 'PUT global', `GET guild:${world.privateGuildId}`, `PUT guild:${world.privateGuildId}`]);
		assert.deepEqual(
			world.fake.registeredCommands().map((c) => c.id),
			globalIds,
			'same commands, same ids',
		);
	});

	test('haven deploy-commands: skipped when unchanged (Discord is not even asked), --force registers and prints the changes per scope', async () => {
		// Someone removed a command by hand and added a stray one. Without --force the stored hash says nothing changed
		// (no request to Discord); --force reads the set, puts it back and says what it did. Both runs side by side.
		const ping = world.fake.registeredCommands().find((c) => c.name === 'ping')!;
		const api = `${world.fake.restUrl}/v10/applications/${world.fake.applicationId}/commands`;
		const headers = { authorization: `Bot ${world.fake.token}`, 'content-type': 'application/json' };
		await fetch(`${api}/${ping.id}`, { method: 'DELETE', headers });
		await fetch(api, { method: 'POST', headers, body: JSON.stringify({ name: 'stray', description: 'Left over' }) });
		world.fake.clearRequests();
		const [skipped, forced] = await Promise.all([cli(), cli('--force')]);
		assert.equal(skipped.stdout.trim(), 'Slash commands are up to date (definitions unchanged since the last deploy): nothing sent to Discord');
		const unchanged = world.fake.registeredCommands().length - 1; // every global command but the restored /ping
		const ownerCommands = world.fake.registeredCommands(world.privateGuildId).length;
		assert.deepEqual(forced.stdout.trim().split('\n'), [
			`Commands global: created 1 (/ping), updated 0, removed 1 (/stray), unchanged ${unchanged}`,
			`Commands guild ${world.privateGuildId}: created 0, updated 0, removed 0, unchanged ${ownerCommands}`,
		]);
		assert.deepEqual(
			commandRequests(),
			['GET global', 'PUT global', `GET guild:${world.privateGuildId}`, `PUT guild:${world.privateGuildId}`],
			'from --force only',
		);
		assert.ok(world.fake.registeredCommands().some((c) => c.name === 'ping'));
		assert.ok(!world.fake.registeredCommands().some((c) => c.name === 'stray'));
	});

	test('a new PRIVATE_GUILD_ID: owner commands move, and are removed from the old guild', async () => {
		const oldGuild = world.privateGuildId;
		const newGuild = world.fake.guilds.ids[1]!;
		const ownerCommands = world.fake
			.registeredCommands(oldGuild)
			.map((c) => c.name)
			.sort();
		for (const name of ['block', 'changelog', 'feedback-manage']) assert.ok(ownerCommands.includes(name), `${name} is an owner command`);
		world.fake.clearRequests();
		await world.restart({ PRIVATE_GUILD_ID: newGuild });
		assert.deepEqual(commandRequests(), [
			'GET global',
			'PUT global',
			`GET guild:${newGuild}`,
			`PUT guild:${newGuild}`,
			`GET guild:${oldGuild}`,
			`PUT guild:${oldGuild}`,
		]);
		assert.deepEqual(world.fake.registeredCommands(oldGuild), []);
		assert.deepEqual(
			world.fake
				.registeredCommands(newGuild)
				.map((c) => c.name)
				.sort(),
			ownerCommands,
		);
		const stored = await world.haven.db.orm.em.fork().findOne(AppState, { key: COMMANDS_HASH_KEY });
		assert.equal((stored!.value as { privateGuildId: string }).privateGuildId, newGuild);
	});
});
