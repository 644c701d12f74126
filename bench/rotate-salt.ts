import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../src/lib/core/config.ts';
import { FieldCipher } from '../src/lib/db/field-cipher.ts';
import { Feedback, migrate, openDatabase } from '../src/lib/db/index.ts';
import { rotateSalt } from '../src/lib/operations/rotate-salt.ts';

/**
 * rotate-salt on 100k encrypted rows: rows per second and peak memory of this process.
 * Uses DATABASE_URL's server (a fresh database) when set, else the embedded PostgreSQL. Run: node bench/rotate-salt.ts
 */

const ROWS = Number(process.env.ROWS ?? 100_000);
const key = '0123456789abcdef'.repeat(4);
const env: Record<string, string | undefined> = {
	ENCRYPTION_KEY: key,
	ENCRYPTION_SALT_LIST: 'old',
	DATA_DIR: mkdtempSync(join(tmpdir(), 'haven-bench-')),
};
if (process.env.DATABASE_URL) {
	const url = new URL(process.env.DATABASE_URL);
	url.pathname = `/haven_bench_${Date.now()}`;
	env.DATABASE_URL = url.toString();
}
const db = await openDatabase(parseConfig(env), { info: () => undefined, warn: console.warn });
await migrate(db.orm);

// Seed through the ORM, which encrypts under the configured salt ('old').
for (let offset = 0; offset < ROWS; offset += 5000) {
	const rows = Array.from({ length: Math.min(5000, ROWS - offset) }, (_, i) => ({
		userId: '123456789012345678',
		message: `thank you for being here, number ${offset + i}`,
		source: 'api',
		createdAt: new Date(),
		updatedAt: new Date(),
	}));
	await db.orm.em.fork().insertMany(Feedback, rows);
}

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
const baseline = process.memoryUsage().rss;
const report = await rotateSalt(db.orm, new FieldCipher(parseConfig(env).encryption.key, ['new', 'old']), { batchSize: 500, dryRun: false });
clearInterval(sampler);
const rewritten = report.columns.reduce((sum, column) => sum + column.rewritten, 0);
console.log(
	`rotate-salt: ${rewritten.toLocaleString('en')} rows re-encrypted and verified in ${report.seconds.toFixed(1)} s = ${Math.round(rewritten / report.seconds).toLocaleString('en')} rows/s`,
);
console.log(
	`memory: peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (baseline ${(baseline / 2 ** 20).toFixed(0)} MiB, +${((peakRss - baseline) / 2 ** 20).toFixed(0)} MiB during the run)`,
);
console.log(`failures: ${report.failures.length}`);
await db.close();
