// The wellbeing and community logic without Discord: reminder arithmetic (timezones, quiet hours, DST), the scheduler
// with an injected clock and store (start/stop leaves no timer), trends, parsing of AI output, the content pools,
// custom ids, renderers within Discord's limits, and the command definitions' shape.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitFor } from '../support/wait.ts';
import { screen } from '../../src/lib/crisis/screen.ts';
import { definitionProblems, type CommandDefinition } from '../../src/lib/discord/definitions.ts';
import { definition as checkin } from '../../src/commands/wellbeing/checkin.ts';
import { definition as coping } from '../../src/commands/wellbeing/coping.ts';
import { definition as ghostletter } from '../../src/commands/wellbeing/ghostletter.ts';
import { definition as joke } from '../../src/commands/fun/joke.ts';
import { definition as compliment } from '../../src/commands/fun/compliment.ts';
import { definition as trivia } from '../../src/commands/fun/trivia.ts';
import { definition as wouldyourather } from '../../src/commands/fun/wouldyourather.ts';
import { extractJson, generate, isKind, parsePlain, pick, sample } from '../../src/lib/wellbeing/ai.ts';
import { MOODS, renderCheckInLogged, renderHistory, trendOf, type CheckInRow } from '../../src/lib/wellbeing/checkins.ts';
import { checkInFromOptions, historyCount, reminderChoice, reminderFromOptions } from '../../src/lib/wellbeing/checkin-options.ts';
import {
	AFFIRMATIONS,
	BREATHING,
	CHALLENGES,
	COPING_KINDS,
	copingFallback,
	DISTRACTIONS,
	GROUNDING,
	JOURNAL_PROMPTS,
	renderCoping,
} from '../../src/lib/wellbeing/coping.ts';
import { COMPLIMENTS, JOKES, renderCompliment, safeName } from '../../src/lib/wellbeing/fun.ts';
import {
	parseGameButton,
	parseTrivia,
	REVEAL_NOT_ALLOWED,
	ROUND_GONE,
	TRIVIA_REVEALED,
	parseWyr,
	renderTrivia,
	renderWyr,
	shuffleQuestion,
	TRIVIA_CATEGORIES,
	TRIVIA_POOL,
	triviaButtonId,
	triviaFallback,
	withRoundLock,
	WYR_POOL,
	wyrButtonId,
} from '../../src/lib/wellbeing/games.ts';
import { roundTakesAnswers, triviaAnswerReply, triviaClick } from '../../src/lib/wellbeing/trivia-rules.ts';
import { LETTER_BUTTONS, parseModalId, renderLetter } from '../../src/lib/wellbeing/ghost-letters.ts';
import {
	createReminderScheduler,
	inQuietHours,
	localMinutes,
	nextDue,
	outsideQuietHours,
	suggestTimeZones,
	validTimeZone,
	type DueReminder,
	type ReminderStore,
} from '../../src/lib/wellbeing/reminders.ts';
import type { Ai } from '../../src/lib/ai/index.ts';
import { AiError } from '../../src/lib/ai/index.ts';

const USER = '123456789012345678';

describe('reminder arithmetic', () => {
	test('timezones are validated and canonicalised by Intl; autocomplete finds them', () => {
		assert.equal(validTimeZone('europe/paris'), 'Europe/Paris');
		assert.equal(validTimeZone('UTC'), 'UTC');
		assert.equal(validTimeZone('Asia/Kolkata'), 'Asia/Kolkata');
		assert.equal(validTimeZone('Mars/Olympus_Mons'), null);
		assert.equal(validTimeZone(''), null);
		assert.equal(validTimeZone('x'.repeat(80)), null);
		assert.ok(suggestTimeZones('tokyo').includes('Asia/Tokyo'));
		assert.ok(suggestTimeZones('new york').includes('America/New_York'));
		assert.ok(suggestTimeZones('').includes('UTC'));
		assert.ok(suggestTimeZones('a').length <= 25);
	});

	test('local time and quiet hours (same day, past midnight, none)', () => {
		assert.equal(localMinutes(new Date('2031-01-15T23:30:00Z'), 'UTC'), 23 * 60 + 30);
		assert.equal(localMinutes(new Date('2031-01-15T23:30:00Z'), 'Asia/Kolkata'), 5 * 60); // UTC+5:30
		assert.equal(inQuietHours(23 * 60, { start: 22, end: 8 }), true);
		assert.equal(inQuietHours(7 * 60 + 59, { start: 22, end: 8 }), true);
		assert.equal(inQuietHours(8 * 60, { start: 22, end: 8 }), false);
		assert.equal(inQuietHours(13 * 60, { start: 12, end: 14 }), true);
		assert.equal(inQuietHours(14 * 60, { start: 12, end: 14 }), false);
		assert.equal(inQuietHours(3 * 60, { start: 5, end: 5 }), false);
		assert.equal(inQuietHours(3 * 60, null), false);
	});

	test('a time inside quiet hours moves to their end, in the person’s timezone, across DST changes', () => {
		assert.equal(outsideQuietHours(new Date('2031-01-15T23:30:45Z'), 'UTC', { start: 22, end: 8 }).toISOString(), '2031-01-16T08:00:00.000Z');
		assert.equal(outsideQuietHours(new Date('2031-01-15T12:00:00Z'), 'UTC', { start: 22, end: 8 }).toISOString(), '2031-01-15T12:00:00.000Z');
		// New York springs forward on 2031-03-09 at 02:00: 01:30 EST is 06:30Z; 08:00 EDT is 12:00Z.
		const moved = outsideQuietHours(new Date('2031-03-09T06:30:00Z'), 'America/New_York', { start: 22, end: 8 });
		assert.equal(moved.toISOString(), '2031-03-09T12:00:00.000Z');
		assert.equal(localMinutes(moved, 'America/New_York'), 8 * 60);
		// And falls back on 2031-11-02: 01:30 EDT is 05:30Z; 08:00 EST is 13:00Z.
		const back = outsideQuietHours(new Date('2031-11-02T05:30:00Z'), 'America/New_York', { start: 22, end: 8 });
		assert.equal(localMinutes(back, 'America/New_York'), 8 * 60);
		assert.equal(back.toISOString(), '2031-11-02T13:00:00.000Z');
	});

	test('the next reminder is one interval on, then out of quiet hours', () => {
		const schedule = { intervalMinutes: 1_440, timezone: 'Europe/Paris', quiet: { start: 22, end: 8 } };
		assert.equal(nextDue(new Date('2031-01-15T10:00:00Z'), schedule).toISOString(), '2031-01-16T10:00:00.000Z');
		// 22:30 in Paris (UTC+1) is quiet: to 08:00 Paris, 07:00Z.
		assert.equal(nextDue(new Date('2031-01-15T21:30:00Z'), schedule).toISOString(), '2031-01-17T07:00:00.000Z');
	});
});

describe('the reminder scheduler (injected clock and store)', () => {
	function memoryStore(reminders: DueReminder[]): ReminderStore & { disabled: string[]; rows: Map<string, DueReminder> } {
		const rows = new Map(reminders.map((r) => [r.userId, { ...r }]));
		const disabled: string[] = [];
		return {
			rows,
			disabled,
			async due(now, limit) {
				return [...rows.values()]
					.filter((r) => !disabled.includes(r.userId) && r.nextDueAt <= now)
					.slice(0, limit)
					.map((r) => ({ ...r }));
			},
			async claim(userId, expected, next) {
				const row = rows.get(userId);
				if (!row || row.nextDueAt.getTime() !== expected.getTime()) return false;
				row.nextDueAt = next;
				return true;
			},
			async disable(userId) {
				disabled.push(userId);
			},
		};
	}
	const quietLog = { info() {}, warn() {}, error() {} };
	const reminder = (userId: string, due: string, quiet: { start: number; end: number } | null = null): DueReminder => ({
		userId,
		nextDueAt: new Date(due),
		intervalMinutes: 60,
		timezone: 'UTC',
		quiet,
	});

	test('sends what is due at the injected time, once; closed DMs disable; failures retry next interval; quiet hours defer', async () => {
		const store = memoryStore([
			reminder('sent', '2031-01-01T10:00:00Z'),
			reminder('closed', '2031-01-01T10:00:00Z'),
			reminder('failed', '2031-01-01T10:00:00Z'),
			reminder('throws', '2031-01-01T10:00:00Z'),
			reminder('quiet', '2031-01-01T10:00:00Z', { start: 9, end: 12 }),
			reminder('later', '2031-01-01T11:00:00Z'),
		]);
		const sent: string[] = [];
		const scheduler = createReminderScheduler({
			store,
			log: quietLog,
			send: async (userId) => {
				sent.push(userId);
				if (userId === 'throws') throw new Error('boom');
				return userId === 'closed' ? 'closed' : userId === 'failed' ? 'failed' : 'sent';
			},
		});
		const result = await scheduler.tick(new Date('2031-01-01T10:00:30Z'));
		assert.deepEqual(result, { sent: 1, closed: 1, failed: 2, deferred: 1, lost: 0 });
		assert.deepEqual(sent.sort(), ['closed', 'failed', 'sent', 'throws']);
		assert.deepEqual(store.disabled, ['closed']);
		assert.equal(store.rows.get('sent')!.nextDueAt.toISOString(), '2031-01-01T11:00:30.000Z');
		assert.equal(store.rows.get('failed')!.nextDueAt.toISOString(), '2031-01-01T11:00:30.000Z', 'a failure comes again next interval');
		assert.equal(store.rows.get('quiet')!.nextDueAt.toISOString(), '2031-01-01T12:00:00.000Z');
		const again = await scheduler.tick(new Date('2031-01-01T10:00:30Z'));
		assert.equal(again.sent + again.failed + again.closed, 0, 'nothing twice');
		await scheduler.stop();
	});

	test('start() ticks on its interval with the injected clock; stop() leaves no timer and waits for the tick', async () => {
		const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
		const baseline = timers();
		let clock = new Date('2031-01-01T09:00:00Z');
		const store = memoryStore([reminder('u1', '2031-01-01T10:00:00Z')]);
		const sent: string[] = [];
		let ticks = 0;
		const scheduler = createReminderScheduler({
			store,
			log: quietLog,
			now: () => {
				ticks++;
				return clock;
			},
			intervalMs: 5,
			send: async (userId) => {
				sent.push(userId);
				return 'sent';
			},
		});
		scheduler.start();
		scheduler.start(); // idempotent
		assert.equal(scheduler.running, true);
		await waitFor(() => ticks >= 2, { everyMs: 5, what: 'two ticks' });
		assert.deepEqual(sent, [], 'not due yet at 09:00');
		clock = new Date('2031-01-01T10:00:00Z');
		await waitFor(() => sent.length > 0, { everyMs: 5, what: 'the reminder to be sent' });
		assert.deepEqual(sent, ['u1']);
		await scheduler.stop();
		assert.equal(scheduler.running, false);
		assert.equal(timers(), baseline, 'no timer left alive');
		scheduler.start();
		assert.equal(scheduler.running, false, 'a stopped scheduler stays stopped');
	});
});

describe('check-in trend', () => {
	const row = (mood: string, intensity: number, i: number): CheckInRow => ({
		id: i,
		mood,
		intensity,
		note: null,
		createdAt: new Date(Date.UTC(2031, 0, i + 1)),
	});
	test('first, brighter, heavier, steady (newest first in, oldest first out)', () => {
		assert.equal(trendOf([row('good', 3, 1)]).direction, 'first');
		assert.equal(trendOf([row('great', 5, 4), row('good', 4, 3), row('sad', 4, 2), row('anxious', 5, 1)]).direction, 'brighter');
		assert.equal(trendOf([row('sad', 5, 4), row('lonely', 4, 3), row('calm', 3, 2), row('good', 4, 1)]).direction, 'heavier');
		assert.equal(trendOf([row('okay', 3, 4), row('tired', 2, 3), row('okay', 3, 2), row('okay', 1, 1)]).direction, 'steady');
		const trend = trendOf(Array.from({ length: 12 }, (_, i) => row('okay', 3, 12 - i)));
		assert.equal(trend.recent.length, 7);
		assert.ok(trend.recent[0]!.createdAt < trend.recent[6]!.createdAt, 'oldest first');
	});

	test('renders within Discord limits, even 15 long notes', () => {
		const rows = Array.from({ length: 15 }, (_, i) => ({ ...row(MOODS[i % MOODS.length]!.value, 5, i), note: 'x'.repeat(500) }));
		const view = renderHistory(rows, 40);
		const size = view.embeds!.reduce(
			(sum, e) =>
				sum +
				(e.title?.length ?? 0) +
				(e.description?.length ?? 0) +
				(e.footer?.text.length ?? 0) +
				(e.fields ?? []).reduce((s, f) => s + f.name.length + f.value.length, 0),
			0,
		);
		assert.ok(size <= 6_000, `embeds total ${size}`);
		assert.match(view.embeds![0]!.title!, /Your last 15 check-ins \(of 40\)/);
		assert.ok(renderCheckInLogged(rows[0]!, rows).embeds![0]!.description!.length <= 4_096);
		assert.equal(MOODS.length <= 25, true, 'choices fit');
	});
});

describe('/checkin options', () => {
	test('a check-in: a listed mood and an intensity from 1 to 5; the note trimmed, cut to 500, empty means none', () => {
		assert.deepEqual(checkInFromOptions({ mood: 'calm', intensity: 3, note: '  a walk helped  ' }), {
			mood: 'calm',
			intensity: 3,
			note: 'a walk helped',
		});
		assert.equal((checkInFromOptions({ mood: 'calm', intensity: 3, note: 'x'.repeat(600) }) as { note: string }).note.length, 500);
		assert.equal((checkInFromOptions({ mood: 'calm', intensity: 1, note: '   ' }) as { note: string | null }).note, null);
		const refused = { problem: 'Please pick a mood from the list and an intensity from 1 to 5.' };
		assert.deepEqual(checkInFromOptions({ mood: 'ecstatic', intensity: 3, note: null }), refused);
		assert.deepEqual(checkInFromOptions({ mood: 'calm', intensity: 0, note: null }), refused);
		assert.deepEqual(checkInFromOptions({ mood: 'calm', intensity: 6, note: null }), refused);
	});

	test('history shows 10 by default, never fewer than 1 nor more than 15', () => {
		assert.equal(historyCount(null), 10);
		assert.equal(historyCount(3), 3);
		assert.equal(historyCount(0), 1);
		assert.equal(historyCount(99), 15);
	});

	test('reminders: refusals for a bad interval, half or out-of-range quiet hours, an unknown timezone', () => {
		const set = (over: Partial<Parameters<typeof reminderFromOptions>[0]> = {}) =>
			reminderFromOptions({ every: 1_440, timezone: null, quietStart: null, quietEnd: null, ...over });
		assert.deepEqual(set({ every: 7 }), { problem: 'Please choose how often from the list.' });
		assert.match((set({ quietStart: 22 }) as { problem: string }).problem, /both `quiet_start` and `quiet_end`/);
		assert.deepEqual(set({ quietStart: 22, quietEnd: 24 }), { problem: 'Quiet hours are whole hours from 0 to 23.' });
		assert.match((set({ timezone: 'Mars/`Olympus`' }) as { problem: string }).problem, /I don't know the timezone `Mars\/'Olympus'`/);
		assert.deepEqual(set({ timezone: 'europe/paris', quietStart: 23, quietEnd: 7 }), {
			intervalMinutes: 1_440,
			timezone: 'Europe/Paris',
			quiet: { start: 23, end: 7 },
		});
		assert.equal((set({ quietStart: 5, quietEnd: 5 }) as { quiet: unknown }).quiet, null, 'equal hours: no quiet hours');
	});

	test('reminders: what is not given stays as before, or takes the defaults the first time', () => {
		const keep = { intervalMinutes: 240, timezone: null, quiet: 'keep' as const };
		assert.deepEqual(reminderChoice(keep, null), { intervalMinutes: 240, timezone: 'UTC', quiet: { start: 22, end: 8 } });
		const current = {
			enabled: false,
			intervalMinutes: 1_440,
			timezone: 'Asia/Tokyo',
			quiet: null,
			nextDueAt: new Date(0),
			disabledReason: 'user',
		};
		assert.deepEqual(reminderChoice(keep, current), { intervalMinutes: 240, timezone: 'Asia/Tokyo', quiet: null });
		assert.deepEqual(reminderChoice({ intervalMinutes: 240, timezone: 'UTC', quiet: { start: 1, end: 2 } }, current), {
			intervalMinutes: 240,
			timezone: 'UTC',
			quiet: { start: 1, end: 2 },
		});
	});
});

describe('AI output', () => {
	const ai = (behaviour: (() => Promise<string>) | string): Ai => ({
		configured: true,
		complete: typeof behaviour === 'string' ? async () => behaviour : behaviour,
		moderate: async () => null,
	});

	test('generate: the parsed answer, or the fallback on any failure', async () => {
		const request = { system: 's', prompt: 'p', parse: (t: string) => (t.length > 3 ? t : undefined), fallback: () => 'pool' };
		assert.deepEqual(await generate(ai('a good answer'), request), { value: 'a good answer', fromAi: true });
		assert.deepEqual(await generate(ai('no'), request), { value: 'pool', fromAi: false });
		assert.deepEqual(
			await generate(
				ai(async () => Promise.reject(new AiError('timeout'))),
				request,
			),
			{ value: 'pool', fromAi: false },
		);
		assert.deepEqual(
			await generate(
				ai(async () => Promise.reject(new TypeError('bug'))),
				request,
			),
			{ value: 'pool', fromAi: false },
		);
		assert.deepEqual(await generate({ configured: false, complete: async () => 'x', moderate: async () => null }, request), {
			value: 'pool',
			fromAi: false,
		});
		assert.deepEqual(
			await generate(ai('ok then'), {
				...request,
				parse: () => {
					throw new Error('parser bug');
				},
			}),
			{ value: 'pool', fromAi: false },
		);
	});

	test('extractJson tolerates fences and chatter, never throws', () => {
		assert.deepEqual(extractJson('Sure!\n```json\n{"a": 1}\n```\nEnjoy'), { a: 1 });
		assert.equal(extractJson('{"a": '), undefined);
		assert.equal(extractJson('no json here'), undefined);
		assert.equal(extractJson('} {'), undefined);
	});

	test('trivia JSON: strict shape, four distinct kind choices, answer by index, letter or text', () => {
		const base = {
			question: 'Which planet is closest to the Sun?',
			choices: ['Mercury', 'Venus', 'Earth', 'Mars'],
			explanation: 'Mercury has the smallest orbit.',
		};
		assert.equal(parseTrivia(JSON.stringify({ ...base, answer: 0 }), 'space')?.answer, 0);
		assert.equal(parseTrivia(JSON.stringify({ ...base, answer: 'B' }), 'space')?.answer, 1);
		assert.equal(parseTrivia(JSON.stringify({ ...base, answer: 'earth' }), 'space')?.answer, 2);
		assert.equal(parseTrivia(JSON.stringify({ ...base, answer: '3' }), 'space')?.answer, 3);
		assert.equal(parseTrivia(JSON.stringify({ ...base, answer: 4 }), 'space'), undefined);
		assert.equal(parseTrivia(JSON.stringify({ ...base, answer: 'Pluto' }), 'space'), undefined);
		assert.equal(parseTrivia(JSON.stringify({ ...base, choices: ['Mercury', 'Venus', 'Earth'], answer: 0 }), 'space'), undefined);
		assert.equal(parseTrivia(JSON.stringify({ ...base, choices: ['Mercury', 'Venus', 'Earth', 'x'.repeat(81)], answer: 0 }), 'space'), undefined);
		assert.equal(
			parseTrivia(JSON.stringify({ ...base, question: 'Which planet would you kill to visit?', answer: 0 }), 'space'),
			undefined,
			'unkind',
		);
		assert.equal(parseTrivia(JSON.stringify({ ...base, explanation: 42, answer: 0 }), 'space'), undefined);
		assert.equal(parseTrivia('[1,2,3]', 'space'), undefined);
		const fenced = parseTrivia(`Here you go:\n\`\`\`json\n${JSON.stringify({ ...base, answer: 0 })}\n\`\`\``, 'space');
		assert.equal(fenced?.question, base.question);
	});

	test('would-you-rather JSON: prefixes and question marks removed, distinct, kind', () => {
		assert.deepEqual(parseWyr('{"a": "Would you rather be a cat?", "b": "or be a dog."}'), { a: 'be a cat', b: 'be a dog' });
		assert.deepEqual(parseWyr('{"optionA": "go", "optionB": "fly"}'), undefined, 'too short');
		assert.deepEqual(parseWyr('{"optionA": "sail the seas", "optionB": "fly the skies"}'), { a: 'sail the seas', b: 'fly the skies' });
		assert.equal(parseWyr('{"a": "eat cake", "b": "Eat cake"}'), undefined);
		assert.equal(parseWyr('{"a": "eat cake", "b": "die trying"}'), undefined);
		assert.equal(parseWyr('{"a": "eat cake"}'), undefined);
	});

	test('plain text: sanitized (no numbers, no mentions), bounded, kind', () => {
		assert.equal(
			parsePlain('"A pun about bread: it was the yeast I could do."', { max: 300 }),
			'A pun about bread: it was the yeast I could do.',
		);
		assert.equal(parsePlain('x'.repeat(301), { max: 300 }), undefined);
		assert.equal(parsePlain('You are an idiot', { max: 300 }), undefined);
		assert.doesNotMatch(parsePlain('Call 555-123-4567, <@123456789012345678>!', { max: 300 }) ?? '', /555|<@/);
	});
});

describe('content pools', () => {
	const all = [
		...JOKES,
		...COMPLIMENTS,
		...AFFIRMATIONS,
		...BREATHING,
		...GROUNDING,
		...DISTRACTIONS,
		...CHALLENGES,
		...JOURNAL_PROMPTS,
		...WYR_POOL.flatMap((q) => [q.a, q.b]),
		...TRIVIA_POOL.flatMap((q) => [q.question, ...q.choices, q.explanation]),
	];

	test('nothing in the pools screens as a crisis or carries a phone number or link', () => {
		for (const text of all) {
			assert.equal(screen(text).level, 'none', text);
			assert.doesNotMatch(text, /\d{5,}|https?:|<@/, text);
		}
	});

	test('community pools pass the kindness check; sizes give variety', () => {
		for (const text of [...JOKES, ...COMPLIMENTS, ...WYR_POOL.flatMap((q) => [q.a, q.b])]) assert.ok(isKind(text), text);
		assert.ok(JOKES.length >= 20 && COMPLIMENTS.length >= 20 && WYR_POOL.length >= 20 && TRIVIA_POOL.length >= 20);
		assert.equal(new Set(JOKES).size, JOKES.length);
	});

	test('trivia pool: four distinct choices, answer listed first, every category covered; shuffling keeps the answer', () => {
		for (const q of TRIVIA_POOL) {
			assert.equal(q.choices.length, 4);
			assert.equal(new Set(q.choices.map((c) => c.toLowerCase())).size, 4, q.question);
			assert.equal(q.answer, 0);
			assert.ok(q.choices.every((c) => c.length <= 80));
		}
		for (const category of TRIVIA_CATEGORIES) assert.ok(TRIVIA_POOL.filter((q) => q.category === category).length >= 3, category);
		let seed = 0.1;
		const random = () => (seed = (seed * 9301 + 0.49297) % 1);
		const positions = new Set<number>();
		for (const q of TRIVIA_POOL) {
			const shuffled = shuffleQuestion(q, random);
			assert.equal(shuffled.choices[shuffled.answer], q.choices[q.answer]);
			assert.deepEqual([...shuffled.choices].sort(), [...q.choices].sort());
			positions.add(shuffled.answer);
		}
		assert.ok(positions.size > 1, 'the answer is not always in the same place');
		assert.equal(triviaFallback('space', () => 0).category, 'space');
	});

	test('every coping kind has a fallback; renders fit', () => {
		for (const kind of COPING_KINDS) {
			const text = copingFallback(kind, () => 0.5);
			assert.ok(text.length > 20 && text.length <= 1_200, kind);
			assert.ok(renderCoping(kind, { value: text, fromAi: false }).embeds![0]!.description!.length <= 4_096);
		}
		assert.equal(
			pick([1, 2, 3], () => 0.999),
			3,
		);
		assert.equal(sample([1, 2, 3, 4], 2).length, 2);
	});
});

describe('custom ids and views', () => {
	test('ghost-letter buttons carry their author and parse back; malformed ids are ignored', () => {
		assert.deepEqual(LETTER_BUTTONS.parse(LETTER_BUTTONS.page(USER, 3)), { kind: 'page', userId: USER, index: 3 });
		assert.deepEqual(LETTER_BUTTONS.parse(LETTER_BUTTONS.remove(USER, 42)), { kind: 'delete', userId: USER, id: 42 });
		assert.deepEqual(LETTER_BUTTONS.parse(LETTER_BUTTONS.clear(USER, true)), { kind: 'clear', userId: USER, confirm: true });
		assert.deepEqual(LETTER_BUTTONS.parse(LETTER_BUTTONS.clear(USER, false)), { kind: 'clear', userId: USER, confirm: false });
		for (const bad of [
			'ghostletter:page:abc:1',
			'ghostletter:clear:123456789012345678:maybe',
			'ghostletter:page:123456789012345678:yes',
			'ghostletter:page:123456789012345678:-1',
			'other',
		]) {
			assert.equal(LETTER_BUTTONS.parse(bad), null, bad);
		}
		assert.equal(parseModalId('ghostletter-modal:keep'), 'keep');
		assert.equal(parseModalId('ghostletter-modal:other'), null);
		const view = renderLetter(USER, { letter: { id: 1, content: 'x'.repeat(4_000), createdAt: new Date() }, total: 1, index: 0 });
		assert.ok(view.embeds![0]!.description!.length <= 4_096);
	});

	test('game buttons parse back', () => {
		assert.deepEqual(parseGameButton(triviaButtonId(7, 2)), { game: 'trivia', roundId: 7, action: 'answer', choice: 2 });
		assert.deepEqual(parseGameButton(triviaButtonId(7, 'reveal')), { game: 'trivia', roundId: 7, action: 'reveal' });
		assert.deepEqual(parseGameButton(wyrButtonId(9, 1)), { game: 'wyr', roundId: 9, choice: 1 });
		assert.equal(parseGameButton('trivia:7:4'), null);
		assert.equal(parseGameButton('wyr:9:2'), null);
		const labels = [
			...renderTrivia(1, TRIVIA_POOL[0]!, [0, 0, 0, 0], false, false).components!.flatMap((row) => row.components),
			...renderWyr(1, WYR_POOL[0]!, [3, 4], false).components!.flatMap((row) => row.components),
		];
		for (const button of labels) assert.ok(((button as { label?: string }).label ?? '').length <= 80);
	});

	test('names are shown without pings or markdown', () => {
		assert.equal(safeName('@everyone'), '@\u200beveryone');
		assert.equal(safeName('**bold**'), '\\*\\*bold\\*\\*');
		assert.equal(safeName('<@123456789012345678>'), '<\u200b@\u200b123456789012345678\\>');
		assert.equal(safeName('   '), 'someone');
		assert.equal(safeName('x'.repeat(100)).length, 64);
		assert.doesNotMatch(renderCompliment({ value: 'Kind words.', fromAi: false }, { targetName: '@here', fromName: 'Ann' }).content!, /@here/);
	});

	test('the round lock runs one round’s work in order, other rounds in parallel', async () => {
		const order: string[] = [];
		// Work that takes `ms`: the order it finishes in is the behaviour under test, not a wait.
		const slow = (label: string, ms: number) => async () => {
			await new Promise((resolve) => setTimeout(resolve, ms));
			order.push(label);
			return label;
		};
		const results = await Promise.all([
			withRoundLock(1, slow('1a', 30)),
			withRoundLock(1, slow('1b', 1)),
			withRoundLock(2, slow('2a', 5)),
			withRoundLock(1, async () => Promise.reject(new Error('x'))).catch(() => 'failed'),
			withRoundLock(1, slow('1c', 1)),
		]);
		assert.deepEqual(results, ['1a', '1b', '2a', 'failed', '1c']);
		assert.deepEqual(order, ['2a', '1a', '1b', '1c']);
	});
});

describe('trivia rules', () => {
	const question = TRIVIA_POOL[0]!;
	const round = { id: 7, kind: 'trivia' as const, startedBy: USER, content: question, fromAi: false, revealed: false };
	const OTHER = '223456789012345678';

	test('a click: nothing on a gone or revealed round; only the starter reveals; anyone answers an open round', () => {
		const answer = { game: 'trivia' as const, roundId: 7, action: 'answer' as const, choice: 2 };
		const reveal = { game: 'trivia' as const, roundId: 7, action: 'reveal' as const };
		assert.deepEqual(triviaClick(null, answer, OTHER), { kind: 'refuse', message: ROUND_GONE });
		assert.deepEqual(triviaClick({ ...round, revealed: true }, answer, OTHER), { kind: 'refuse', message: TRIVIA_REVEALED });
		assert.deepEqual(triviaClick({ ...round, revealed: true }, reveal, USER), { kind: 'refuse', message: TRIVIA_REVEALED });
		assert.deepEqual(triviaClick(round, reveal, OTHER), { kind: 'refuse', message: REVEAL_NOT_ALLOWED });
		assert.deepEqual(triviaClick(round, reveal, USER), { kind: 'reveal', round });
		assert.deepEqual(triviaClick(round, answer, OTHER), { kind: 'answer', round, choice: 2 });
		assert.deepEqual(triviaClick(round, answer, USER), { kind: 'answer', round, choice: 2 }, 'the starter may answer too');
	});

	test('under the lock, a round revealed or deleted meanwhile takes no answer', () => {
		assert.equal(roundTakesAnswers(round), true);
		assert.equal(roundTakesAnswers({ revealed: true }), false);
		assert.equal(roundTakesAnswers(null), false);
	});

	test('the private reply: right or wrong with the explanation, the first answer again, or the round is over', () => {
		const right = question.answer;
		const wrong = (right + 1) % 4;
		assert.match(triviaAnswerReply(question, { counted: true, choice: right }), /^✅ Correct!/);
		assert.ok(triviaAnswerReply(question, { counted: true, choice: right }).includes(question.explanation));
		assert.match(triviaAnswerReply(question, { counted: true, choice: wrong }), /^Not quite: you chose [A-D]\./);
		assert.match(triviaAnswerReply(question, { counted: false, choice: wrong }), /^You already answered this one/);
		assert.equal(triviaAnswerReply(question, null), TRIVIA_REVEALED);
	});
});

describe('command definitions', () => {
	const definitions: CommandDefinition[] = [checkin, coping, ghostletter, joke, compliment, trivia, wouldyourather];
	const NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;

	test('valid for Discord at every level; cooldowns as the README lists them', () => {
		assert.deepEqual(definitionProblems(definitions), []);
		const walk = (options: readonly any[], where: string) => {
			assert.ok(options.length <= 25, where);
			for (const option of options) {
				assert.match(option.name, NAME, `${where} ${option.name}`);
				assert.ok(
					option.description.length >= 1 && option.description.length <= 100,
					`${where} ${option.name}: ${option.description.length}`,
				);
				for (const choice of option.choices ?? []) assert.ok(choice.name.length <= 100);
				assert.ok((option.choices ?? []).length <= 25);
				if (option.options) walk(option.options, `${where} ${option.name}`);
			}
		};
		for (const definition of definitions) walk(definition.options ?? [], `/${definition.name}`);
		assert.deepEqual(Object.fromEntries(definitions.map((d) => [d.name, d.cooldownSeconds])), {
			checkin: 0,
			coping: 8,
			ghostletter: 8,
			joke: 5,
			compliment: 5,
			trivia: 5,
			wouldyourather: 5,
		});
	});
});
