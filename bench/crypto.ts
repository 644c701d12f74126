import { FieldCipher } from '../src/lib/db/field-cipher.ts';

/** Field encryption throughput: seal+open pairs per second for typical sizes. Run: node bench/crypto.ts */

const cipher = new FieldCipher(Buffer.alloc(32, 1), ['bench-salt', 'older-salt']);
const at = { table: 'feedback', column: 'message' };

for (const size of [64, 512, 4096]) {
	const text = 'a gentle note '.repeat(Math.ceil(size / 14)).slice(0, size);
	for (let i = 0; i < 2000; i++) cipher.open(cipher.seal(text, at), at); // warm-up
	const rounds = size > 1000 ? 50_000 : 200_000;
	const started = performance.now();
	for (let i = 0; i < rounds; i++) cipher.open(cipher.seal(text, at), at);
	const seconds = (performance.now() - started) / 1000;
	console.log(
		`${String(size).padStart(5)} bytes: ${Math.round(rounds / seconds).toLocaleString('en')} encrypt+decrypt per second (${((seconds / rounds) * 1e6).toFixed(2)} µs each)`,
	);
}
