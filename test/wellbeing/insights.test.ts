// /insights through the fake Discord: the summary with a mood chart that is a real PNG of the expected size and not
// blank, the streaks over check-ins, journal and gratitude, the most frequent moods, gentle observations, and what
// it says with too little data instead of an empty chart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { container } from '@sapphire/framework';
import { GratitudeItem, JournalEntry, MoodCheckIn } from '../../src/lib/db/index.ts';
import { dayOf } from '../../src/lib/wellbeing/gratitude.ts';
import { observations, streaks, type InsightData } from '../../src/lib/wellbeing/insights.ts';
import { CHART_HEIGHT, CHART_WIDTH } from '../../src/lib/wellbeing/mood-chart.ts';
import { isEphemeral, someone, startWellbeingWorld, textOf, type WellbeingWorld } from './support.ts';

let w: WellbeingWorld;

before(async () => {
	w = await startWellbeingWorld();
});

after(async () => {
	await w?.close();
});

const DAY = 86_400_000;

/** Decodes an 8-bit RGB or RGBA PNG (no interlace): width, height and the distinct colours. */
function decodePng(png: Buffer): { width: number; height: number; colours: number } {
	assert.deepEqual([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
	let offset = 8;
	let width = 0;
	let height = 0;
	let channels = 0;
	const idat: Buffer[] = [];
	while (offset < png.length) {
		const length = png.readUInt32BE(offset);
		const type = png.toString('latin1', offset + 4, offset + 8);
		const body = png.subarray(offset + 8, offset + 8 + length);
		if (type === 'IHDR') {
			width = body.readUInt32BE(0);
			height = body.readUInt32BE(4);
			assert.equal(body[8], 8, 'bit depth');
			channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0;
			assert.ok(channels, `colour type ${body[9]}`);
			assert.equal(body[12], 0, 'not interlaced');
		}
		if (type === 'IDAT') idat.push(body);
		offset += 12 + length;
	}
	const raw = inflateSync(Buffer.concat(idat));
	const stride = width * channels;
	const pixels = Buffer.alloc(stride * height);
	for (let row = 0; row < height; row++) {
		const filter = raw[row * (stride + 1)]!;
		for (let i = 0; i < stride; i++) {
			const x = raw[row * (stride + 1) + 1 + i]!;
			const a = i >= channels ? pixels[row * stride + i - channels]! : 0;
			const b = row > 0 ? pixels[(row - 1) * stride + i]! : 0;
			const c = row > 0 && i >= channels ? pixels[(row - 1) * stride + i - channels]! : 0;
			const p = a + b - c;
			const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
			const predictor = [0, a, b, (a + b) >> 1, paeth][filter]!;
			pixels[row * stride + i] = (x + predictor) & 0xff;
		}
	}
	const colours = new Set<string>();
	for (let i = 0; i < pixels.length; i += channels) colours.add(pixels.subarray(i, i + channels).toString('hex'));
	return { width, height, colours: colours.size };
}

async function seed(userId: string, now: number) {
	const em = container.db.orm.em.fork();
	const moods = ['sad', 'okay', 'good', 'anxious', 'calm', 'great'];
	// Six check-ins over the last six days (one a day, ending today), an entry and a good thing today and yesterday.
	moods.forEach((mood, i) =>
		em.create(MoodCheckIn, { userId, guildId: null, mood, intensity: (i % 5) + 1, note: null, createdAt: new Date(now - (5 - i) * DAY) }),
	);
	em.create(JournalEntry, { userId, mood: 'good', content: 'an entry', reflection: null, createdAt: new Date(now - DAY) });
	em.create(GratitudeItem, { userId, day: dayOf(new Date(now)), content: 'tea', createdAt: new Date(now) });
	// An older, separate run of four days, 40 to 37 days ago: the longest streak is still the recent six.
	for (let d = 40; d >= 37; d--)
		em.create(MoodCheckIn, { userId, guildId: null, mood: 'tired', intensity: 2, note: null, createdAt: new Date(now - d * DAY) });
	await em.flush();
}

describe('/insights', () => {
	test('a private summary with a mood chart: a real PNG of 800x400, not blank; streaks and moods', async () => {
		const user = someone();
		await seed(user, Date.now());
		const ix = w.fake.sendSlashCommand({ name: 'insights', userId: user, options: { days: 7 } });
		assert.ok(isEphemeral((await ix.callback()).body), 'deferred privately');
		const edit = await ix.edit(10_000);
		assert.deepEqual(edit.body.allowed_mentions, { parse: [] });
		assert.equal(edit.files?.length, 1);
		const file = edit.files![0]!;
		assert.equal(file.name, 'mood-chart.png');
		const png = decodePng(file.data);
		assert.deepEqual([png.width, png.height], [CHART_WIDTH, CHART_HEIGHT]);
		assert.ok(png.colours > 10, `more than a few colours (${png.colours})`);
		const text = textOf(edit.body);
		assert.match(text, /Your insights, last 7 days/);
		assert.match(text, /6 check-ins, 1 journal entry and 1 good thing in the last 7 days/);
		assert.match(text, /Current streak: 6 days/);
		assert.match(text, /Longest streak: 6 days/);
		assert.match(text, /Most frequent moods: 🙂 Good ×2/);
		assert.match(text, /not a diagnosis/);
		assert.equal(edit.body.embeds[0].image.url, 'attachment://mood-chart.png');

		// The 5 s per-person cooldown, as if it had passed.
		(container.stores.get('preconditions').get('Cooldown') as unknown as { release(): void }).release();
		const ninety = w.fake.sendSlashCommand({ name: 'insights', userId: user, options: { days: 90 } });
		await ninety.callback();
		const longer = await ninety.edit(10_000);
		assert.match(textOf(longer.body), /10 check-ins/);
		assert.match(textOf(longer.body), /Most frequent moods: 😴 Tired ×4/);
	});

	test('too little data: says what it needs, no empty chart', async () => {
		const user = someone();
		const em = container.db.orm.em.fork();
		em.create(MoodCheckIn, { userId: user, guildId: null, mood: 'okay', intensity: 3, note: null });
		await em.flush();
		const ix = w.fake.sendSlashCommand({ name: 'insights', userId: user });
		await ix.callback();
		const edit = await ix.edit(10_000);
		assert.equal(edit.files?.length ?? 0, 0, 'no chart');
		const text = textOf(edit.body);
		assert.match(text, /last 30 days/);
		assert.match(text, /The mood chart needs at least 3 check-ins in the last 30 days; you have 1/);
		assert.match(text, /Current streak: 1 day/);
	});

	test('observations: counted from the person’s own data, gently worded, never a diagnosis', () => {
		const at = (day: string) => new Date(`${day}T12:00:00Z`);
		const checkIn = (id: number, day: string, mood: string, intensity: number) => ({ id, mood, intensity, note: null, createdAt: at(day) });
		// Two Saturdays great, two Mondays sad; the later half brighter; good things on the bright days.
		const data: InsightData = {
			days: 30,
			from: at('2026-11-01'),
			to: at('2026-11-30'),
			checkIns: [
				checkIn(1, '2026-11-02', 'sad', 4),
				checkIn(2, '2026-11-09', 'sad', 3),
				checkIn(3, '2026-11-14', 'great', 4),
				checkIn(4, '2026-11-21', 'great', 5),
			],
			journalMoods: ['good', null, 'calm'],
			journalCount: 3,
			gratitude: [
				{ id: 1, day: '2026-11-14', content: 'a', createdAt: at('2026-11-14') },
				{ id: 2, day: '2026-11-21', content: 'b', createdAt: at('2026-11-21') },
			],
			activeDays: new Set(),
		};
		const notes = observations(data);
		assert.deepEqual(notes, [
			'Your more recent check-ins lean brighter than the earlier ones in this period.',
			'Saturdays tend to be among your better days in what you logged.',
			'On days you noted good things, your check-ins were brighter on average.',
			'You wrote in your journal 3 times in this period: that is time you gave yourself.',
		]);
		for (const note of notes) assert.doesNotMatch(note, /depress|disorder|diagnos|symptom/i);
		assert.deepEqual(observations({ ...data, checkIns: data.checkIns.slice(0, 1), journalCount: 0 }), []);
	});

	test('streaks: today or yesterday keeps the current one; the longest run anywhere', () => {
		const now = new Date('2026-11-24T10:00:00Z');
		const days = new Set(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-22', '2026-11-23']);
		assert.deepEqual(streaks(days, now), { current: 2, longest: 4 });
		assert.deepEqual(streaks(new Set([...days, '2026-11-24']), now), { current: 3, longest: 4 });
		assert.deepEqual(streaks(new Set(['2026-11-20']), now), { current: 0, longest: 1 });
		assert.deepEqual(streaks(new Set(), now), { current: 0, longest: 0 });
	});
});
