#!/usr/bin/env node
// Plain JavaScript on purpose: an old Node cannot even parse the TypeScript entry point, so check first.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
	console.error(
		`haven: Node ${process.versions.node} is too old (Haven needs 22.18 or newer, which runs TypeScript directly).\n` +
			'Run it through npm, which uses the Node that `npm ci` installs: `npm start`, `npx haven <command>` or `npm run haven -- <command>`.',
	);
	process.exit(1);
}
await import('../src/cli/haven.ts');
