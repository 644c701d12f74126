import { InvalidArgumentError, type Command } from 'commander';
import { activeBlocks, describeBlock, parseTargetId, viewBlock, type BlockKind } from '../../lib/operations/blocks.ts';
import { oneOffRest, runBlock, runUnblock } from '../../lib/operations/owner-actions.ts';
import { withDatabase } from '../context.ts';
import { examples } from '../output.ts';

/**
 * `haven block|unblock user|guild <id>` and `haven blocks`: the owners' blocks without Discord. A running Haven sees a
 * change within its block cache time (10 s). `--leave` (servers) needs TOKEN: Haven leaves through Discord's API.
 */

const target = (value: string) => {
	const id = parseTargetId(value);
	if (!id) throw new InvalidArgumentError('must be a Discord id (17 to 20 digits)');
	return id;
};

const kind = (value: string): BlockKind => {
	if (value !== 'user' && value !== 'guild') throw new InvalidArgumentError('must be user or guild');
	return value;
};

export default function register(program: Command): void {
	examples(program.command('block'), [
		"haven block user 123456789012345678 --reason 'spam in DMs'",
		"haven block guild 223456789012345678 --reason 'raids' --leave",
	])
		.description('block a person or a whole server from Haven; crisis help stays available to them')
		.argument('<kind>', 'user or guild', kind)
		.argument('<id>', 'the Discord id', target)
		.requiredOption('--reason <text>', 'why (kept with the block)')
		.option('--leave', 'guild only: Haven leaves the server too (needs TOKEN)')
		.option('--json', 'print JSON')
		.action(async (blockKind: BlockKind, targetId: string, options: { reason: string; leave?: boolean; json?: boolean }) => {
			await withDatabase(async (db, config) => {
				if (options.leave && blockKind !== 'guild') throw new Error('--leave is for servers only');
				if (options.leave && !config.discord.token)
					throw new Error('TOKEN is not set: leaving a server goes through Discord as the bot. Nothing was changed.');
				const result = await runBlock(db.orm.em.fork(), {
					kind: blockKind,
					targetId,
					reason: options.reason,
					by: null,
					ownerIds: config.discord.ownerIds,
					leave: options.leave ? { rest: oneOffRest(config.discord.apiUrl, config.discord.token!) } : undefined,
				});
				if (!result.ok) throw new Error(result.problem);
				if (options.json) console.log(JSON.stringify({ ...result.block, created: result.created, left: result.left ?? null }, null, 2));
				else {
					console.log(`${result.created ? 'Blocked' : 'Already blocked; reason updated'}: ${describeBlock(result.block)}`);
					if (result.left)
						console.log(result.left === 'left' ? 'Haven left the server.' : `Leaving the server: ${result.left.replace(/_/g, ' ')}.`);
				}
			});
		});

	examples(program.command('unblock'), ['haven unblock user 123456789012345678'])
		.description('lift the block on a person or a server (the record stays)')
		.argument('<kind>', 'user or guild', kind)
		.argument('<id>', 'the Discord id', target)
		.action(async (blockKind: BlockKind, targetId: string) => {
			await withDatabase(async (db) => {
				const lifted = await runUnblock(db.orm.em.fork(), blockKind, targetId, null);
				console.log(lifted ? `Unblocked ${blockKind} ${targetId}.` : `${blockKind} ${targetId} is not blocked.`);
			});
		});

	examples(program.command('blocks'), ['haven blocks', 'haven blocks --json'])
		.description('list the blocks in force')
		.option('--json', 'print JSON')
		.action(async (options: { json?: boolean }) => {
			await withDatabase(async (db) => {
				const blocks = (await activeBlocks(db.orm.em.fork(), 1000)).map(viewBlock);
				console.log(
					options.json ? JSON.stringify(blocks, null, 2) : blocks.length ? blocks.map(describeBlock).join('\n') : 'Nobody is blocked.',
				);
			});
		});
}
