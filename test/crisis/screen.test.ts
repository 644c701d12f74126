import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LEVELS, levelRank, loadLexicons, maxLevel, screen, screenRules, type CrisisLevel } from '../../src/lib/crisis/screen.ts';

const level = (text: string): CrisisLevel => screen(text).level;
const atLeast = (text: string, min: CrisisLevel): void => {
	const got = level(text);
	assert.ok(levelRank(got) >= levelRank(min), `${JSON.stringify(text)}: expected at least ${min}, got ${got} (${screen(text).evidence.join(' ')})`);
};
const exactly = (text: string, want: CrisisLevel): void => {
	assert.equal(level(text), want, `${JSON.stringify(text)}: ${screen(text).evidence.join(' ')}`);
};

describe('levels', () => {
	test('orders the levels and picks the higher one', () => {
		assert.deepEqual([...LEVELS], ['none', 'concern', 'high', 'imminent']);
		assert.deepEqual(LEVELS.map(levelRank), [0, 1, 2, 3]);
		assert.equal(maxLevel('concern', 'high'), 'high');
		assert.equal(maxLevel('imminent', 'none'), 'imminent');
		assert.equal(maxLevel('none', 'none'), 'none');
		assert.throws(() => levelRank('severe' as CrisisLevel));
	});

	test('loads every lexicon', () => {
		const { languages, phrases } = loadLexicons();
		assert.deepEqual([...languages].sort(), ['de', 'en', 'es', 'fr', 'it', 'pt']);
		assert.ok(phrases > 500);
	});
});

describe('screen: what it recognises', () => {
	test('explicit ideation is high', () => {
		for (const t of [
			'I want to die',
			'i want to kill myself',
			"I don't want to live anymore",
			"i'm suicidal",
			'I wish I was dead',
			'thinking about ending my life',
			'should i just kill myself',
		])
			exactly(t, 'high');
	});

	test('a plea for help with a crisis phrase is a crisis', () => {
		const a = screen('please help me, I want to kill myself');
		assert.equal(a.level, 'high');
		assert.ok(a.categories.includes('help_seeking'));
		assert.ok(a.categories.includes('suicidal_ideation'));
	});

	test('intent with a plan, means or a time is imminent', () => {
		for (const t of [
			"I'm going to kill myself tonight",
			'i want to die and i have the pills ready',
			'I bought a rope. I am going to hang myself',
			"i'm about to kill myself right now",
			'I am going to end my life after this message',
		]) {
			exactly(t, 'imminent');
		}
		const a = screen('i want to kill myself tonight');
		assert.ok(a.categories.includes('time_bound_intent'));
	});

	test('an attempt under way is imminent', () => {
		exactly('i just took all my pills', 'imminent');
		exactly('I took like 40 pills', 'imminent');
		assert.ok(screen('I just swallowed a whole bottle of pills').categories.includes('attempt'));
	});

	test('self-harm and relapse', () => {
		for (const t of ['I cut again', 'i cut myself last night', "I've been cutting again", 'relapsed on sh last night']) exactly(t, 'high');
		exactly('i relapsed', 'concern');
		assert.ok(screen('I cut again').categories.includes('self_harm'));
	});

	test('indirect ideation, goodbyes and distress are concern', () => {
		for (const t of [
			'everyone would be better off without me',
			"I won't be around much longer",
			'i just want to go to sleep and never wake up',
			"I'm giving away all my stuff, I won't need it anymore",
			'goodbye everyone, sorry for everything',
			"I can't do this anymore",
			'nobody would even notice if i didnt wake up tomorrow',
			'honestly so tired of being alive',
			'if a truck ran me over on the way to work i would not mind',
			'si un camion me écrasait demain ça m’arrangerait',
		]) {
			// The rubric puts them at concern; the model may raise one to high when its high head agrees.
			assert.equal(screenRules(t).level, 'concern', t);
			atLeast(t, 'concern');
		}
		exactly('this is goodbye forever', 'high');
	});

	test('worry about someone else is third party', () => {
		const a = screen('my friend says she wants to kill herself');
		assert.equal(a.level, 'concern');
		assert.equal(a.thirdParty, true);
		assert.deepEqual(a.categories, ['third_party']);
		const urgent = screen('my friend just told me she took a whole bottle of pills');
		assert.equal(urgent.level, 'imminent');
		assert.equal(urgent.thirdParty, true);
		const both = screen('my friend wants to kill herself and honestly I want to die too');
		assert.equal(both.level, 'high');
		assert.ok(both.thirdParty && both.categories.includes('suicidal_ideation'));
	});

	test('quoted words reported from someone else are theirs', () => {
		const a = screen('My roommate said "I want to die" and locked herself in');
		assert.equal(a.thirdParty, true);
		assert.deepEqual(a.categories, ['third_party']);
		// The rubric of the rules alone: worry about someone else is concern; the model may raise it (she locked herself in).
		assert.equal(screenRules('My roommate said "I want to die" and locked herself in').level, 'concern');
		assert.notEqual(a.level, 'none');
	});

	test('algospeak, leetspeak and masks', () => {
		for (const t of [
			'i should just kys',
			'i want to unalive myself',
			'thinking about sewerslide',
			'i wanna su1c1de',
			'thinking about s*icide',
			'I w@nt to k1ll my$elf',
			'im gonna kms',
			'i want to self delete',
			'i want to 🔪 myself',
		]) {
			atLeast(t, 'high');
		}
		exactly('kys noob', 'none');
		exactly('go kill yourself', 'none');
	});

	test('typos of the core phrases', () => {
		for (const t of [
			'i wnat to die',
			'i want to kill myslef',
			'im suicidle',
			'i keep thinking about suicde',
			'i want to kil myself',
			'I wannnnna diiiieee',
		])
			atLeast(t, 'high');
	});

	test('every language of the lexicon', () => {
		const cases: [string, string][] = [
			['es', 'me quiero morir'],
			['fr', 'je veux mourir'],
			['de', 'ich will mich umbringen'],
			['pt', 'quero me matar'],
			['pt', 'apetece-me matar-me'],
			['it', 'voglio morire'],
		];
		for (const [lang, text] of cases) {
			const a = screen(text);
			assert.equal(a.level, 'high', text);
			assert.deepEqual(a.language, [lang], text);
		}
		exactly('me voy a suicidar esta noche', 'imminent');
		exactly('mi amiga dice que se quiere matar', 'concern');
		exactly('ele quer matar-me, estou com medo', 'none');
		assert.deepEqual(screen('i want to die').language, ['en']);
	});
});

describe('screen: plans, means and intent (rubric in screen.ts)', () => {
	test('means at hand with an intent to use them is imminent, with or without a time', () => {
		for (const t of [
			'i have the pills and will take them tonight',
			'I have the pills right here and I am going to take them all tonight',
			'i will take them all tonight',
			'have the pills, will take them tonight',
			'i have my dads gun and im going to use it',
			'grabbed the razor from the bathroom gonna do it now',
			'bought a rope today. tonight im doing it',
			'ive been stockpiling pills and tonight im taking them all',
			'i have the pills. goodbye',
			'i hve the pils and im gona take them tonite',
			'tengo las pastillas y me las voy a tomar todas esta noche',
			'ich habe die Tabletten und nehme sie heute Nacht alle',
		]) {
			exactly(t, 'imminent');
		}
		assert.ok(screen('i have the pills and will take them tonight').categories.includes('plan_or_means'));
	});

	test('acquiring or stockpiling means is concern alone (the model may call it high, never imminent), high with a time; means in hand with a time is high', () => {
		for (const t of ['i bought a rope', 'i just bought a gun', 'been hoarding my meds', 'stockpiling my seroquel', 'compré una cuerda']) {
			assert.equal(screenRules(t).level, 'concern', t);
			atLeast(t, 'concern');
			assert.notEqual(level(t), 'imminent', t);
		}
		exactly('bought a rope today. tonights the night', 'high');
		exactly('i have the rope. tonight.', 'high');
	});

	test('means without intent, routine medication and a benign purpose are none', () => {
		// A bare "i have a gun" is none to the rules; the model may ask about it (concern), never more.
		assert.equal(screenRules('i have a gun').level, 'none');
		assert.ok(levelRank(level('i have a gun')) <= levelRank('concern'));
		for (const t of [
			'i have the pills',
			'i have the pills my doctor gave me and will take them tonight before bed',
			'forgot to take my pills this morning, will take them tonight',
			'i have the keys and will take them back tomorrow',
			'bought a rope for the climbing gym',
			'bought a nerf gun for my nephew',
			'the bridge in this song is so good',
			'gonna jump on ranked tonight',
			"i'll take them all to the park tonight, the kids need to run",
			'gonna end the stream early tonight guys',
			'caffeine overdose lmao 4 energy drinks',
			'she has the pills and will take them tonight',
		]) {
			exactly(t, 'none');
		}
	});

	test('routine context never hides a quantity or an ideation', () => {
		exactly("i have the pills my doctor gave me and i'm going to take them all tonight", 'imminent');
		exactly('my doctor prescribed these and i want to die', 'high');
	});

	test('ideation or a goodbye with an intent to act is high, imminent with a time', () => {
		exactly('everyone would be better off without me. im gonna do it', 'high');
		exactly('everyone would be better off without me. im gonna do it tonight', 'imminent');
		// The rubric alone: a vague intent with a time and no ideation is concern; the model may read more into it.
		assert.equal(screenRules('tonight im going to do it').level, 'concern');
		atLeast('tonight im going to do it', 'concern');
	});
});

describe('screen: what it is not fooled by', () => {
	const none = (texts: string[]): void => {
		for (const t of texts) exactly(t, 'none');
	};
	test('idioms', () =>
		none([
			'I am dying to see the new movie',
			"you're killing it!",
			"I'm dead lol",
			'kill me now, another meeting',
			'this homework is killing me',
			'that cake is to die for',
			'I want to dye my hair',
			'I nearly killed myself laughing',
			'semana de prova, vou me matar de estudar até sexta',
			'mi ammazzo di lavoro tutta la settimana',
			'if the bus is late again i would not even mind, more time to read',
		]));
	test('an idiom does not hide the real thing', () => exactly('vou me matar de verdade hoje', 'imminent'));
	test('tech', () => none(['kill the process', 'run kill -9 on the pid', 'the OOM killer killed it', 'git reset killed my changes']));
	test('games', () =>
		none(['I killed myself in minecraft', 'i died in the boss fight', 'just killed myself with my own grenade lmao', 'type /kill to respawn']));
	test('fiction, news and history', () =>
		none([
			'In the book the main character kills himself',
			'the news said a man committed suicide',
			'Van Gogh shot himself in 1890',
			'the character says "I want to die" in chapter 3',
			'September is suicide prevention month',
		]));
	test('recovery and the past', () =>
		none([
			'I used to self harm, a year clean today',
			'two years ago I tried to kill myself, today I graduated',
			"i haven't self harmed in two years",
			'I used to want to die every day. Therapy really helped.',
		]));
	test('helping others in the abstract', () =>
		none([
			'how do you help someone who is suicidal?',
			'if you ever feel like hurting yourself, please reach out',
			'what are the warning signs that someone might kill themselves',
		]));
	test('everyday sadness and grief', () =>
		none([
			'I am so sad today',
			'my grandma died last week and I miss her',
			'I failed my exam and I feel like crap',
			'my uncle killed himself when I was a kid',
		]));
	test('denials', () => none(["I'm not suicidal, just tired", "i don't want to die, i just want things to change", 'I would never kill myself']));
	test('a recovery story told as one: a distant time, a turn to now, and the phrase in the past tense', () =>
		none([
			'At my worst I wanted to die every day. Now I run the peer group at the clinic.',
			'en 2019 quería morirme. hoy estoy bien y trabajo de enfermera',
			'Last winter I thought everyone would be better off without me. Got help, and this winter I am doing fine.',
			'i went through a phase where i wanted to die. now im doing great, married and happy',
			'já tive uma fase em que queria morrer. hoje tenho uma filha e uma vida que eu gosto',
			'tuve una etapa en la que quería morirme. hoy estoy bien y tengo trabajo',
		]));
	test('but a recovery story does not hide the present: something recent, or anything coming back', () => {
		exactly('Two years ago I lost my job. Last night I wanted to die. Now I just sit here', 'high');
		exactly('At my worst I wanted to die. Now I feel the same way again', 'high');
		exactly('At my worst I wanted to die. Now I feel scared', 'high');
		exactly('en 2019 quería morirme. hoy estoy bien pero volvieron las ganas', 'high');
		exactly('i went through a phase where i wanted to die. now its back and worse', 'high');
	});
	test('having stopped is not doing it, and a song is not the singer', () => {
		none([
			'It has been a year since I stopped self harming. My scars are white now.',
			'that song with "i wanna die young" in the chorus is stuck in my head',
		]);
		exactly('I stopped eating and I want to die', 'high');
		exactly('i stopped taking my meds, i want to kill myself', 'high');
		exactly('I want to die, it is in my head like a song you cannot get rid of', 'high');
	});
	test('but the past does not hide the present', () => {
		exactly('I used to want to die and I still do', 'high');
		exactly('I used to be happy, now I want to die', 'high');
		exactly('I was clean for a year but I cut again last night', 'high');
	});
	test('joke markers lower ambiguous phrases, not explicit ones', () => {
		exactly('kms lol', 'concern');
		exactly('this exam kms lol', 'none');
		exactly('gonna commit sewerslide lol', 'high');
		exactly('i want to die lol /srs', 'high');
	});
});

describe('screen: acts under way, in every language (the rules alone)', () => {
	const rules = (text: string): CrisisLevel => screenRules(text).level;

	test('a cut that will not stop bleeding is an emergency; a nosebleed is not', () => {
		for (const text of [
			'me corté más hondo de lo normal y no para de sangrar',
			'o corte ficou muito fundo e nao para de sangrar',
			'je me suis coupée et ça arrête pas de saigner depuis 15 min',
			'hab zu tief geschnitten und es hört nicht auf zu bluten',
			'mi sono tagliato fortissimo e non smette di sanguinare',
		])
			assert.equal(rules(text), 'imminent', text);
		for (const text of ['il mio naso non smette di sanguinare da un ora', 'mi nariz no para de sangrar, odio el invierno'])
			assert.equal(rules(text), 'none', text);
	});

	test('telling someone with the means or the place at hand is a goodbye; telling good news is not', () => {
		for (const text of [
			'im in the bath with the blade. just wanted to tell someone',
			"i'm at the bridge now. i just wanted to say sorry to anyone who tried",
			"got my dad's gun out of the safe. it's in my lap. i don't really know why i'm typing this",
			'checked into the motel, everything i need is on the nightstand. goodbye',
		])
			assert.equal(rules(text), 'imminent', text);
		for (const text of [
			'im at the bridge now, just wanted to tell someone how pretty the sunset is',
			'i passed my driving test!! just wanted to tell someone',
			'logging off for good, this server is toxic',
		])
			assert.equal(rules(text), 'none', text);
	});

	test('"ending it" now, and the same words about a relationship or a stream', () => {
		assert.equal(rules("knife's right next to me and i'm ending it now. can't do one more day"), 'imminent');
		assert.equal(rules('im ending it tonight'), 'imminent');
		assert.equal(rules("i'm ending it with him tonight"), 'none');
		assert.equal(rules('im ending it now, this stream is cursed'), 'none');
	});

	test('"ending it" with the means, German word order, and community slang', () => {
		assert.equal(rules("ending it right now. gun's loaded"), 'imminent');
		assert.equal(rules('heute nacht bring ich mich um. tut mir leid an alle'), 'imminent');
		assert.equal(rules('ich bring mich um vor lachen'), 'none');
		assert.equal(rules('su1c1d3 is all that makes sense now'), 'high');
		assert.equal(rules('the film shows suicide is never the only answer'), 'none');
		assert.equal(rules('he thought suicide was the only way out, the documentary says'), 'none');
		assert.equal(rules('passive ctb thoughts again. just tired'), 'concern');
		assert.equal(rules('been in my sewerslide era mentally'), 'concern');
		assert.equal(rules("ce week-end je m'unalive, c'est prévu"), 'imminent');
		assert.equal(rules('ending it now with him'), 'none');
	});

	test('a contraction is read ("rope\'s tied"), a blister pack taken, and finishing with everything in German', () => {
		assert.equal(rules("rope's tied, i tested the beam"), 'high');
		assert.equal(rules('i have all the pills counted out on the bed'), 'high');
		assert.equal(rules('i have all my vitamins counted out for the week'), 'none');
		assert.equal(rules('took the whole blister pack plus the vodka. feeling heavy'), 'imminent');
		assert.equal(rules('took the blister pack of antihistamines to the chemist to return it'), 'none');
		assert.equal(rules('heute nacht mach ich schluss mit allem. sorry an alle'), 'imminent');
		assert.equal(rules('ich mach schluss mit ihm'), 'none');
		assert.equal(rules('ando a pensar em pôr fim à vida há umas semanas'), 'high');
	});

	test('a dose asked for "to not wake up", a whole bottle taken, a car in a closed garage, a rope hung, in several languages', () => {
		assert.equal(rules('how many sertraline to not wake up'), 'high');
		assert.equal(rules("c'est quoi la dose mortelle de doliprane ? pas pour un devoir hein"), 'high');
		assert.equal(rules('took the whole bottle 20 min ago'), 'imminent');
		assert.equal(rules('took the whole bottle of wine to the party'), 'none');
		assert.equal(rules('sitze im auto in der garage, motor läuft, tor ist zu'), 'imminent');
		assert.equal(rules('motor läuft, tor ist zu, wir fahren gleich los in den urlaub'), 'none');
		assert.equal(rules("la corde est accrochée, je suis seul à l'appart jusqu'à demain. c'est ce soir"), 'imminent');
		assert.equal(rules("la corde est accrochée pour l'escalade demain"), 'none');
		assert.equal(rules('ho la corda in macchina e sono da solo su in montagna. è stasera'), 'imminent');
		assert.equal(rules('perdi o emprego e eu só penso em matar-me'), 'high');
		assert.equal(rules('posted my goodbye to the group. 5 min ago'), 'high');
		assert.equal(rules('posted my goodbye to the old apartment on insta, new city here i come'), 'none');
	});

	test('an overdose of "something" taken by someone else', () =>
		assert.equal(rules("my mom just swallowed a whole bottle of something and she's getting really sleepy. what do i do"), 'imminent'));

	test('the present tense of killing oneself, and the same verb as an idiom', () => {
		assert.equal(rules("ce soir je me tue, je voulais juste le dire à quelqu'un avant"), 'imminent');
		assert.equal(rules('je me tue à te le dire depuis une heure'), 'none');
		assert.equal(rules('je me tue au travail pour un salaire de misère'), 'none');
	});

	test('a thought that keeps crossing the mind, and finishing with a job', () => {
		assert.equal(rules('lo único que se me pasa por la cabeza es matarme'), 'high');
		assert.equal(rules('passa pela minha cabeça me matar todo dia'), 'high');
		assert.equal(rules('mi passa per la testa di farla finita ogni sera'), 'high');
		assert.equal(rules('penso di farla finita con questo lavoro'), 'none');
		assert.equal(rules('voglio farla finita con tutto'), 'high');
	});

	test('self-harm told by its signs: urges, depth slang, hidden or glued wounds; and the same words at rest', () => {
		assert.equal(rules('the sh urges are loud tonight, holding on'), 'concern');
		assert.equal(rules('went to styro again last night'), 'high');
		assert.equal(rules('cooked the beans last night'), 'none');
		assert.equal(rules('had to lie about the cuts again'), 'concern');
		assert.equal(rules('superglued my cut shut again so nobody asks'), 'concern');
		assert.equal(rules('my sister is writing her dissertation on self-harm urges in teens'), 'none');
	});

	test('preparation told by acts: a hung rope, a question about how an overdose feels, belongings given away', () => {
		assert.equal(rules("the rope's up in the shed"), 'high');
		assert.equal(rules('would an overdose of sleeping pills hurt much'), 'high');
		assert.equal(rules('been researching which method would hurt the least'), 'high');
		assert.equal(rules('ive been giving my things away to friends, quietly'), 'concern');
		assert.equal(rules('giving my things away before i move to lisbon'), 'none');
		assert.equal(rules('estoy regalando mis cosas de a poco'), 'concern');
		assert.equal(rules('estoy regalando mis cosas porque me mudo a chile'), 'none');
		assert.equal(rules('ich verschenke gerade meine ganzen sachen'), 'concern');
		assert.equal(rules("i'll be killing myself within the hour"), 'high');
	});

	test('someone else in danger told by what they do: on a ledge saying they will jump, gone with a gun, hurting their arms', () => {
		assert.equal(rules('my flatmate is standing on the balcony saying shes going to jump'), 'imminent');
		assert.equal(rules('my brother is on the roof and says hes going to jump into the pool lol'), 'none');
		assert.equal(screenRules('someone in our server says theyre on a bridge and theyre about to jump').thirdParty, true);
		assert.equal(rules('dad took his rifle and drove off, hes not answering'), 'concern');
		assert.equal(rules('my girlfriend keeps scratching her arms until they bleed'), 'concern');
		assert.equal(rules('mi amiga se despidió de todos en el grupo y no contesta'), 'concern');
		assert.equal(rules('meine schwester hat sich von allen verabschiedet und geht nicht ans handy'), 'concern');
	});

	test('a wish held for months, a birthday as the deadline, tonight as the night, a spaced-out word, a dose that should not hurt', () => {
		assert.equal(rules("i want to die, i've felt this way for weeks, my mum thinks i'm doing better"), 'high');
		assert.equal(rules('i wanted to die back then. now i run the peer group'), 'none');
		assert.ok(levelRank(rules("if nothing changes by my birthday i'm going to end it")) >= levelRank('high'));
		assert.equal(rules('tonight is the night i go through with it'), 'imminent');
		assert.equal(rules('s u i c i d e is all i think abt'), 'high');
		assert.equal(rules('would sleeping pills hurt or just feel like falling asleep'), 'high');
		assert.equal(rules('i wrote letters to everyone for christmas this year'), 'none');
		assert.equal(rules("honestly i'd rather not have been born"), 'concern');
	});

	test('hurting oneself told by the act (fists, a sharpener taken apart, a hair tie snapped to welts), in the other languages too', () => {
		assert.equal(rules('punched myself in the thigh until it bruised'), 'high');
		assert.equal(rules('took a sharpener apart again last night'), 'high');
		assert.equal(rules('snapping the rubber band on my wrist till it leaves welts'), 'concern');
		assert.equal(rules('my cousin says he cant see a future for himself'), 'concern');
		assert.equal(rules('stanotte mi butto, scusate'), 'imminent');
		assert.equal(rules('se la prof mi interroga domani mi butto dal balcone ahah'), 'none');
		assert.equal(rules('se potessi dormire per sempre lo farei'), 'concern');
		assert.equal(rules('la soga ya está colgada'), 'high');
		assert.equal(rules('combien de cachets il faut pour ne pas se réveiller'), 'high');
		assert.equal(rules('si me atropella un coche mañana, hasta mejor'), 'concern');
	});

	test('an accident in the kitchen is no self-harm unless it was on purpose; a card, a stream, a schedule and an old letter are not a crisis', () => {
		assert.equal(rules('cut myself on the mandoline during dinner service'), 'none');
		assert.equal(rules('burned myself with the curling iron on purpose so it would stop'), 'high');
		assert.equal(rules('je me suis brûlé avec la poêle, de la glace vite'), 'none');
		assert.equal(rules('je me suis brûlée avec la poêle exprès'), 'high');
		assert.equal(rules("writing a goodbye note in Sam's leaving card"), 'none');
		assert.equal(rules('ok la faccio finita con sta live, a domani raga'), 'none');
		assert.equal(rules("i'm cutting my hours down to part time"), 'none');
		assert.equal(rules('found my old goodbye letter from 2018 today, so glad i stayed'), 'none');
		assert.equal(rules("if one more person spoils the finale i'm ending it all"), 'none');
	});

	test('passive wishes told sideways, self-harm slang and acts, and preparation by acts, in several languages', () => {
		assert.equal(rules("i hope i don't make it to 25"), 'concern');
		assert.equal(rules('would anyone even notice if i disappeared'), 'concern');
		assert.equal(rules('i keep praying god takes me in my sleep'), 'concern');
		assert.equal(rules("i'm just taking up space at this point"), 'concern');
		assert.equal(rules('the barcode arms are back'), 'high');
		assert.equal(rules('i scratch until i bleed most nights'), 'high');
		assert.equal(rules('cleaning out my flat so nobody has to do it after'), 'high');
		assert.equal(rules("i'm gonna commit toaster bath"), 'high');
		assert.equal(rules('my brother says he wishes he was dead'), 'concern');
		assert.equal(rules('i bring mi um, wirklich'), 'high');
		assert.equal(rules('a corda está presa na viga da garagem'), 'high');
		assert.equal(rules('je me suis tapé la tête contre le mur encore'), 'high');
		assert.equal(rules('hab mich beim gemüseschneiden in den daumen geschnitten'), 'none');
	});

	test('a book review, a hotline shared, a clothesline, a last day at the shop, a recovery told from now: not a crisis', () => {
		assert.equal(rules('doing a book review of the bell jar, how do i write about the suicide attempt part'), 'none');
		assert.equal(rules('you can text 988 if youre having thoughts of suicide, its free'), 'none');
		assert.equal(rules("i've been having thoughts of suicide again"), 'high');
		assert.equal(rules('where do i buy rope for a clothesline'), 'none');
		assert.equal(rules('last day at the shop, wrote goodbye letters to the regulars'), 'none');
		assert.equal(rules('i was suicidal for most of my twenties. honestly happy now'), 'none');
		assert.equal(rules('6 meses sem me cortar hoje!!'), 'none');
	});

	test('a recovery told from years later, the news about suicide nets, a goodbye letter to a car, a petty last straw', () => {
		assert.equal(rules('two winters ago i was writing goodbye letters. now i teach swimming'), 'none');
		assert.equal(rules('the news about the bridge getting suicide nets is good'), 'none');
		assert.equal(rules('writing a goodbye letter to my old car before the trade-in'), 'none');
		assert.equal(rules("i'm gonna kms if the refs blow one more call"), 'none');
		assert.equal(rules("i'm going to kill myself tonight"), 'imminent');
	});

	test('a word that marks an accident or a study in one language does not hide a crisis in another, or a whole sentence', () => {
		assert.equal(rules('cut myself four times last night'), 'high');
		assert.equal(rules('hab mich geritzt, am daumen'), 'high');
		assert.equal(rules('sitting in sociology thinking about killing myself'), 'high');
		assert.equal(rules('cut myself with the grater again tonight'), 'high');
		assert.ok(levelRank(rules('i tried to gas myself with the oven last night')) >= levelRank('high'));
		assert.equal(rules('put my head in the oven and turned the gas on'), 'imminent');
		assert.equal(rules('burned myself on the stove making pasta'), 'none');
		assert.equal(rules('je me suis coupé les cheveux moi-même'), 'none');
	});

	test('a farewell letter to a class or a job, a kitchen cut and a burn from a motorbike, a crime series: not a crisis', () => {
		assert.equal(rules('escrevi a carta de despedida pra turma, a formatura é sábado'), 'none');
		assert.ok(levelRank(rules('escribí la carta de despedida, ya no aguanto más')) >= levelRank('high'));
		assert.equal(rules('me corté con la mandolina haciendo la cena'), 'none');
		assert.equal(rules('me corté otra vez a propósito'), 'high');
		assert.equal(rules('me queimei no escapamento da moto, nada demais'), 'none');
		assert.equal(rules('im Tatort hat der Kommissar den Abschiedsbrief gefunden'), 'none');
		assert.equal(rules('comprei uma corda de pular pra treinar'), 'none');
	});

	test('a petty cause drops the hyperbole, a trivial one lowers it, and a laugh with a trivial cause drops it', () => {
		assert.equal(rules('if one more customer asks for a discount i will kms'), 'none');
		assert.equal(rules('se mais uma vez tocar essa música eu me mato'), 'none');
		assert.equal(rules('wenn ich noch einmal dieses lied höre bring ich mich um'), 'none');
		assert.equal(rules('if one more person asks, i will kms. not a joke, i mean it'), 'high');
		assert.equal(rules('this exam makes me want to die'), 'concern');
		assert.equal(rules('this exam makes me want to die lol'), 'none');
		assert.equal(rules('l esame di domani mi uccide, voglio morire'), 'concern');
		assert.equal(rules('i want to die lol'), 'high');
		assert.equal(rules('im gonna walk into traffic tonight'), 'imminent');
	});

	test('a hotline for "you", a thought that has not come, a job left, an overdose of candy, a rope for the dog: not a crisis', () => {
		assert.equal(rules('si vous avez des idées suicidaires, appelez le 3114'), 'none');
		assert.equal(rules("i haven't had a single thought about ending it in a year"), 'none');
		assert.equal(rules("i've had a thought about ending it"), 'high');
		assert.equal(rules('handed in my notice, writing goodbye notes to the team'), 'none');
		assert.equal(rules('my cousin overdosed on easter chocolate again'), 'none');
		assert.equal(rules('comprei uma coleira e uma corda pro cachorro'), 'none');
		assert.equal(rules('should i just end it and buy a new phone'), 'none');
		assert.equal(rules('the senate voted to decriminalize attempted suicide'), 'none');
		assert.equal(rules('já nem me lembro da última vez que pensei em me matar, hoje estou bem'), 'none');
	});

	test('a decision said without a subject, in the present tense or as a departure that is not a move, and an act told in a few words, in every language', () => {
		for (const text of [
			'Ending my life this weekend.',
			"I've decided to die. I just want my cat sorted first.",
			'old man here. ending it this winter. i have lived enough.',
			'Eating my gun this weekend.',
			'he decidido morir',
			'Antes de Reyes me quito la vida.',
			'decidi morrer, já está certo',
			'domingo eu tiro minha vida',
			"j'ai décidé de mourir",
			'Je vais mettre fin à tout ça avant la rentrée.',
			'ho deciso di morire',
			'ich habe beschlossen zu sterben',
			"It's my turn to leave now and I don't mean moving house.",
			'Not gonna be here after this semester, in any sense.',
			"ho deciso che me ne vado prima di Natale. e non intendo in un'altra città",
			'nach den prüfungen bin ich weg, und damit mein ich nicht umziehen',
			"honestly when i get off shift tomorrow i'm going to drive to the coast and not come back",
			"My divorce is final and I've decided not to live past New Year's.",
			'tô pensando em me desviver de vez',
			'este finde me doy de baja del mundo, ya tengo todo pensado',
			'i plan to be dead before my 18th birthday',
			"I don't intend to live past the funeral.",
			"tbh the only reason I've stayed is my cat. she's 19 and the vet says weeks. when she goes, I go.",
			'Ho perso il raccolto. Domattina mi impicco nella stalla.',
			'Decidi pôr fim à minha vida antes do Natal.',
			'i pack des nimma, i bring mi heit no um',
		])
			assert.equal(rules(text), 'high', text);
		for (const text of [
			"I drank the antifreeze. It's done now.",
			'injected everything i had left. this is the goodbye',
			"j'ai bu de la javel, ça me brûle la gorge",
			'hab den abflussreiniger getrunken',
			'ich nehm mir heute das leben',
			"I'm so sorry. I've taken an overdose and I'm going to lie down now.",
			"I've hooked the hose up to the exhaust. Writing this from the driver's seat.",
			"j'ai avalé toute la boîte de lexomil y a 20 min",
			'my mind is made up, throwing myself off the balcony when my flatmates go out',
			'Hanging myself in the shed as soon as I finish typing this.',
			'Der Hof ist verloren. Morgen früh häng ich mich in der Scheune auf.',
			'Perdimos la cosecha. Mañana temprano me cuelgo en el galpón.',
			"Don't bother replying. By the time you read this I'll have done it.",
			'Im in the river now up to my chest, the current is strong, im going to let it take me',
		])
			assert.equal(rules(text), 'imminent', text);
		for (const text of [
			"we're ending it this weekend, the band had a good run",
			"I've decided to dye my hair",
			'boludo el asado de tu viejo me mató, no me puedo ni mover',
			'se domani interroga di latino mi butto dal ponte giuro',
			'drank the antifreeze by accident as a kid',
			"I'm not going to be at the party, in any sense",
			"J'ai pris toute la boîte de chocolats ce soir, aucun regret",
			'overdosing on cold brew to get through finals week',
			"nurse here: if someone's taken an overdose, get them to A&E",
			'jumping off the pier into the sea tomorrow with the lads, cant wait',
			"Jumping off the bridge tomorrow!! bungee, 120m, I'm terrified and buzzing",
			'gonna overdose on red bull and grind this season pass till 6am',
			'hit my head on the cupboard door AGAIN. who designs kitchens like this',
			'Digga wenn der BVB heute wieder verliert häng ich mich auf 😤',
		])
			assert.equal(rules(text), 'none', text);
	});

	test('dialect and told sideways: "top meself", "waan dead", Swiss German, a voice that says it, not alive by a date', () => {
		assert.equal(rules('some days i think i will top meself'), 'high');
		assert.equal(rules('mi waan dead, mi tired'), 'high');
		assert.equal(rules('i cha eifach nümme lebe'), 'high');
		assert.equal(rules('ich wett mir s läbe neh'), 'high');
		assert.equal(rules('my head keeps telling me to kill myself and i listen more each day'), 'high');
		assert.equal(rules("i've decided i'm not going to be alive for graduation"), 'high');
		assert.equal(rules('i keep picturing ending my life'), 'high');
		assert.equal(rules('estoy en el puente con el frasco. hoy se acaba'), 'imminent');
	});

	test('a recovery told by what stopped ("a month without", "the thoughts are gone", "não voltou"): not a crisis', () => {
		assert.equal(rules('i went the whole summer without wanting to hurt myself'), 'none');
		assert.equal(rules('i have never gone a day without wanting to die'), 'high');
		assert.equal(rules('the urges to cut are mostly gone now'), 'none');
		assert.equal(rules('a vontade de me matar não voltou'), 'none');
		assert.equal(rules("j'ai plus du tout envie de mourir"), 'none');
		assert.equal(rules('hace un año q no me corto'), 'none');
		assert.equal(rules('looking back at my diary from 2019, i wanted to die every day. so glad im not there anymore'), 'none');
		assert.equal(rules("i can't go a day without wanting to die"), 'high');
		assert.equal(rules('gonna unalive my roommate if she eats my yoghurt again'), 'none');
		assert.equal(rules('the suicide attempt scene in the film was hard to watch'), 'none');
		assert.equal(rules('the cron job keeps getting killed, should i just kill it'), 'none');
	});

	test('a farewell letter to colleagues, an old letter found and torn up, a book on suicide: not a crisis', () => {
		assert.equal(rules("j'ai écrit une lettre d'adieu aux collègues pour mon pot de départ"), 'none');
		assert.equal(rules("ho scritto una lettera d'addio ai colleghi"), 'none');
		assert.equal(rules('hab einen abschiedsbrief an die kollegen geschrieben'), 'none');
		assert.equal(rules("j'ai écrit ma lettre d'adieu, bonne nuit à tous"), 'imminent');
		assert.equal(rules('beim aufräumen den abschiedsbrief von 2019 gefunden und zerrissen'), 'none');
		assert.equal(rules('my sociology class is reading durkheim on suicide'), 'none');
	});

	test('a decided absence: "not sticking around", "not here by Thursday", "want out of this life", "check out for good", in several languages', () => {
		assert.equal(rules("i've decided i'm not sticking around to see next year"), 'high');
		assert.equal(rules("i won't be here on friday, that's decided"), 'high');
		assert.equal(rules('i just want out of this life'), 'high');
		assert.equal(rules('ready to check out for good'), 'high');
		assert.equal(rules("i'm not letting myself turn 30"), 'high');
		assert.equal(rules('im going to take myself out of the picture'), 'high');
		assert.equal(rules('i think every day to finish my life'), 'high');
		assert.equal(rules("i won't be here on friday, i'm on holiday in spain"), 'none');
		assert.equal(rules('je vais me jeter sous le train demain matin'), 'imminent');
		assert.equal(rules('la prochaine fois je me louperai pas'), 'high');
		assert.equal(rules('la prossima volta non sbaglio'), 'high');
		assert.equal(rules('me aviento del puente mañana'), 'imminent');
		assert.equal(rules('não quero continuar a viver'), 'high');
		assert.equal(rules('hüt znacht machi dem es end'), 'imminent');
	});

	test('asking how to support a friend who self-harms is not a report of danger, unless it is happening now', () => {
		assert.equal(rules('my friend told me she self harms, how do i support her?'), 'none');
		assert.equal(rules('comment je peux aider ma sœur qui se scarifie ?'), 'none');
		assert.equal(rules('come posso aiutare mia sorella che si fa del male?'), 'none');
		assert.equal(rules('my friend is self harming right now on call, how do i help'), 'concern');
		assert.equal(rules("my girlfriend self harms and i don't know how to help her"), 'concern');
		assert.equal(rules('how do i help my friend who is suicidal'), 'concern');
	});

	test('a recovery told from ages ("dai 14 ai 24"), a team result, an alarm clock: not a crisis', () => {
		assert.equal(rules('mi sono tagliata per anni, dai 14 ai 24. adesso ne ho 35 e non lo faccio più'), 'none');
		assert.equal(rules('se la Juve perde anche stasera mi butto dal balcone'), 'none');
		assert.equal(rules('gonna unalive my alarm clock tomorrow'), 'none');
		assert.equal(rules("i'd rather kill myself than sit through another slideshow"), 'none');
		assert.equal(rules("i'd rather kill myself than do another year of this, and i mean that"), 'high');
		assert.equal(rules('which rat poison works fastest for the storeroom rats'), 'none');
	});

	test('a night named, a roof without the stairs back, discharged and trying again, a log-off that is not the game', () => {
		assert.equal(rules("tonight is the night i stop, i've got nothing left"), 'imminent');
		assert.equal(rules('on the roof of my building. not taking the stairs back down'), 'high');
		assert.equal(rules("got discharged this morning and i know i'm going to try again"), 'high');
		assert.equal(rules("logging off for good after this stream, and i don't mean twitch"), 'high');
		assert.equal(rules('im taking my life this weekend'), 'high');
		assert.equal(rules("i'm not gonna be alive when the sequel comes out"), 'high');
		assert.equal(rules('me vojo ammazzà, nun ce la faccio più'), 'high');
		assert.equal(rules('fahr gleich mit vollgas gegen nen baum'), 'imminent');
		assert.equal(rules('giuro che lo ammazzo e poi mi ammazzo'), 'none');
		assert.equal(rules('how do i count my pills for the week organiser'), 'none');
		assert.equal(rules("i burned myself all through my teens. i'm 29 now and haven't in over a decade"), 'none');
	});

	test('praying to be taken, leaving this world soon, not coming back from a drive, the next train, in several languages', () => {
		assert.equal(rules('every night i ask god to take me in my sleep'), 'concern');
		assert.equal(rules('ich bete jeden abend, dass der liebe gott mich endlich holt'), 'concern');
		assert.equal(rules('ogni sera prego il Signore che mi porti via'), 'concern');
		assert.equal(rules('le pido a dios cada noche que me lleve'), 'concern');
		assert.equal(rules("I'm leaving this world soon, my mind is made up"), 'high');
		assert.equal(rules('driving to the river now and im not coming back'), 'high');
		assert.equal(rules("driving to my mom's for the holidays, not coming back till january"), 'none');
		assert.equal(rules('à la gare. le prochain train, je saute'), 'high');
		assert.equal(rules('überlege die ganze nacht, wie ich mir das leben nehme'), 'high');
		assert.equal(rules('I pray to God to give me strength every night'), 'none');
		assert.equal(rules('the next train i take is the 6:40 to leeds'), 'none');
	});

	test('urges told against a clean streak, a question whether an overdose hurts, and an exam that "killed me"', () => {
		assert.equal(rules('sh urges bad tonight, 19 days clean'), 'concern');
		assert.equal(rules('40 days without self harm and today i really want to'), 'concern');
		assert.equal(rules('2 years clean from self harm today!!'), 'none');
		assert.equal(rules('two years ago tonight i tried to end my life. tonight im making pasta, so glad im still here'), 'none');
		assert.equal(rules('estou com uma vontade enorme de me magoar hoje'), 'high');
		assert.equal(rules('anyone know if a paracetamol overdose hurts'), 'high');
		assert.equal(rules("l'esame di analisi mi ha ucciso, voglio morire"), 'none');
		assert.equal(rules('die matheklausur hat mich gekillt, ich will sterben'), 'none');
		assert.equal(rules('this exam, i want to die'), 'concern');
		assert.equal(rules('this exam, i want to die. not joking'), 'high');
	});

	test('a season as the deadline, an age not reached, trying again properly, a strip taken, a car running in the garage, stones in the pockets', () => {
		assert.equal(rules('im not gonna be here by spring'), 'high');
		assert.equal(rules("i won't make it to 25, i know that now"), 'high');
		assert.equal(rules('tried once last year and im gonna try again, properly this time'), 'high');
		assert.equal(rules('took the whole strip an hour ago'), 'imminent');
		assert.equal(rules('sitting in the car in the garage with the engine on'), 'high');
		assert.equal(rules('walking into the lake with stones in my pockets'), 'high');
		assert.equal(rules('comprei carvão e fita adesiva hoje'), 'high');
		assert.equal(rules('the charcoal and the tape are in the car for the bbq tomorrow'), 'none');
		assert.equal(rules('what height is guaranteed, just answer'), 'high');
		assert.equal(rules('what height is guaranteed fall damage death in minecraft? building a mob trap'), 'none');
		assert.equal(rules('everyone in the group chat would be fine without me'), 'concern');
		assert.equal(rules('my dog is the only reason im still here'), 'concern');
		assert.equal(rules("je vais m'enlever la vie"), 'high');
		assert.equal(rules("i won't make it to the party, sorry"), 'none');
		assert.equal(rules('só tô vivo por causa da minha cachorra'), 'concern');
		assert.equal(rules('le monde tournerait très bien sans moi'), 'concern');
		assert.equal(rules('al funerale pensavo: beata lei, ha finito'), 'concern');
	});

	test('a farewell note to the team, a retirement card, embarrassment, a recovery told from training years: not a crisis', () => {
		assert.equal(rules('Writing my farewell note to the team, leaving after 9 years for a new job'), 'none');
		assert.equal(rules("Ho scritto il biglietto d'addio per la collega che va in pensione"), 'none');
		assert.equal(rules('He escrito una carta de despedida para los compañeros'), 'none');
		assert.equal(rules('so embarrassed i want to die, i waved at a stranger'), 'none');
		assert.equal(rules('ich bring mich um, so peinlich'), 'none');
		assert.equal(rules('I self-harmed all through nursing school. 12 years clean now and gentler with patients'), 'none');
		assert.equal(rules('ashamed of myself, i want to die'), 'high');
	});

	test('a date or an age not reached, in six languages, and asking not to be sent a hotline', () => {
		assert.equal(rules('I will not see the next year. I decided already'), 'high');
		assert.equal(rules('ho deciso che a Natale non ci arrivo'), 'high');
		assert.equal(rules("j'ai pris ma décision, je serai plus là pour mes 18 ans"), 'high');
		assert.equal(rules("Pain 9/10 for three years. Decided I'm not doing a fourth."), 'high');
		assert.equal(rules('after results come I will finish myself'), 'high');
		assert.equal(rules('standing on the chair. not stepping down this time'), 'imminent');
		assert.equal(rules("please don't send me a hotline, i just need to say it"), 'concern');
		assert.equal(rules('bitte keine nummern schicken'), 'concern');
		assert.equal(rules('gonna rope after my bday'), 'high');
		assert.equal(rules('hoje eu acabo com tudo... com aquele pote de sorvete'), 'none');
		assert.equal(rules('no pienso cumplir los 30 sin haber ido a Japón'), 'none');
	});

	test('dying on purpose, getting closer to doing it, a year not passed; a last day, a sent voice note, a year without cutting: not a crisis', () => {
		assert.equal(rules("i'm going to die on purpose. there i said it"), 'high');
		assert.equal(rules("I'm getting closer to actually doing it."), 'high');
		assert.equal(rules('nobody is going to miss me'), 'concern');
		assert.equal(rules('eu num passo desse ano não'), 'high');
		assert.equal(rules('ho deciso. a fine anno non ci arrivo'), 'high');
		assert.equal(rules('a fine mese non ci arrivo manco morto, stipendio finito il 10'), 'none');
		assert.equal(rules('Last day at the depot after 19 years. Left a goodbye note on the break room board.'), 'none');
		assert.equal(rules('mi ammazzo, ho mandato il vocale alla prof invece che a Giulia'), 'none');
		assert.equal(rules('faz um ano que não me corto! comemorei com um bolo'), 'none');
		assert.equal(rules("i'll end it all if the barista spells my name wrong one more time"), 'none');
		assert.equal(rules('Back when the farm went under I thought about ending it. Got help. We are doing alright now.'), 'none');
	});

	test('a decision to end it in French, this summer as the last, a river before Christmas, a strip taken in Spanish; recoveries told from a job now', () => {
		assert.equal(rules("j'ai décidé d'en finir"), 'high');
		assert.equal(rules('ich hab beschlossen dass dieser Sommer mein letzter ist'), 'high');
		assert.equal(rules("I'm going into the river before Christmas"), 'high');
		assert.equal(rules("i'm going to walk into the sea, the printer jammed again"), 'none');
		assert.equal(rules('ya me tomé la tira entera de clona'), 'imminent');
		assert.equal(rules("I overdosed at 19 and woke up in ICU. 12 years on I'm a nurse on that same ward."), 'none');
		assert.equal(rules("thought about ending it after me mam died. That was 2019. I'm grand now."), 'none');
		assert.equal(rules("j'ai écrit mon mot d'adieu pour le pot de départ vendredi"), 'none');
	});

	test('passive wishes told sideways: wasting oxygen, praying not to wake, the dead are lucky, died in my sleep', () => {
		assert.equal(rules('I feel like I am just wasting oxygen in this house'), 'concern');
		assert.equal(rules('sometimes i pray to god that i just dont wake up tomorrow'), 'concern');
		assert.equal(rules('the dead are lucky. no more appointments'), 'concern');
		assert.equal(rules("me waking up and realising i didn't die in my sleep again"), 'concern');
		assert.equal(rules('queria só sumir. de vez.'), 'concern');
		assert.equal(rules('I wish I had died instead of him'), 'none');
		assert.equal(rules('my mum just rang to say goodbye before she boards her flight to Manila'), 'none');
		assert.equal(rules('remember when i wanted to ctb? that was last spring. doing so much better now'), 'none');
	});
});

describe('screen: explicit intent told in a few words, in every language (the rules alone)', () => {
	const rules = (text: string): CrisisLevel => screenRules(text).level;
	const atLeast = (min: CrisisLevel, texts: string[]) => {
		for (const text of texts) assert.ok(levelRank(rules(text)) >= levelRank(min), text);
	};
	const exactly = (level: CrisisLevel, texts: string[]) => {
		for (const text of texts) assert.equal(rules(text), level, text);
	};

	test('pills or poison taken in a few words is an emergency; the same verbs about gum or vitamins are not', () => {
		exactly('imminent', [
			"shoved my whole prescription down. 14 days' worth. it's done",
			"right now I'm washing down every pill in the house with a bottle of vodka",
			'done. took everything in the cupboard. love you mum',
			'injected all the insulin i had left. goodnight',
			'gas is on. windows taped. typing this while i still can',
			"The car's running in the garage and the door's shut. I'm sorry.",
		]);
		exactly('none', [
			'took all my vitamins this morning',
			'took the whole pack of gum on the flight and now my jaw hurts lol',
			'took my meds an hour ago, feeling better',
		]);
	});

	test('at a height, then what comes next in the next sentence; a view, a past story or a car park are not', () => {
		atLeast('high', [
			'on the bridge. 10 more minutes and then i jump',
			'Je suis sur le pont au-dessus de la Loire. Je vais sauter.',
			'steh auf der Brücke. spring gleich.',
			'Sono sul ponte e sto per buttarmi.',
			'Estou na ponte 25 de Abril. Vou saltar.',
		]);
		exactly('none', [
			'on the bridge taking photos, the view is amazing',
			"2019 stand ich auf der brücke und wollte springen. heute geht's mir gut",
			"I'm sitting in the car in the work car park with the engine running because I can't face going in.",
		]);
	});

	test('a decision with a time inside the words; the same words about a deadline or a past attempt are not', () => {
		atLeast('high', [
			'Ich werde mir am Wochenende das Leben nehmen.',
			'Decidi tirar minha própria vida no domingo.',
			'el sábado termino con mi vida',
			"I'll be dead by morning. I've decided.",
			"i'm killing myself this weekend, already decided",
			"I'm done being alive.",
			"I'm going to walk into the sea tonight.",
		]);
		exactly('none', [
			"I'll be dead by friday at this rate. three deadlines and a presentation",
			'faz 3 anos que tentei tirar minha vida. hoje eu caso',
			"i'm killing myself at the gym this week",
			'my coworker is walking into the sea tomorrow for a charity dip',
		]);
	});

	test('a rope tied with the chair beneath, in four languages; a rope for a goat pen is no plan', () => {
		atLeast('high', [
			"tied it to the loft hatch. chair's under it. bye",
			'heute nacht ist es so weit. der strick hängt schon.',
			'La cuerda ya está atada a la viga.',
			"j'ai fait le nœud, le tabouret est en dessous.",
			'Schlinge ist fertig, Hocker steht drunter.',
		]);
		assert.equal(rules('the chair is under the table'), 'none');
	});

	test('a plan named as one, a date inside the words, and the same words about moving abroad, a game or an outage', () => {
		atLeast('high', [
			'my su1c1de plan is ready, just need to wait till my parents go on their trip',
			"Does life insurance still pay out on a suicide after the two year mark? I'm at two years three months.",
			'Los 30 los cumplo en marzo. No pienso estar vivo para soplar las velas.',
			'em dezembro eu me mato, tá decidido',
			"I'm sat in the car in the garage. Engine's running.",
			"by sunday i'll be dead",
			'ending it in 20 min',
		]);
		exactly('none', [
			'gonna rope in my brother to help me move the sofa tonight',
			'i will finish my life in this country and start new life in canada next month',
			"Permadeath run: decided I'm ending it at floor 20 regardless",
			'Se me cortó el internet y tuve que terminar el stream antes',
		]);
	});

	test('hoping an accident or the heart ends it, or that everyone would cope without me, is passive ideation', () => {
		exactly('concern', [
			'Driving home after a 14 hour shift I catch myself hoping a lorry comes across the central reservation.',
			"I just think it'd be a mercy if my heart gave out in my sleep.",
			'everyone would cope fine without me. probably better tbh',
		]);
		exactly('none', ["the team will cope fine without me next week, I'm on holiday", "hope the storm doesn't hit me on the way home"]);
		assert.ok(levelRank(rules("A client told me he's going to hang himself and he knows where.")) >= levelRank('concern'));
	});

	test('dying named plainly, with a time or before anyone wakes; dying old and peaceful is no intent', () => {
		atLeast('high', [
			"I'm informing you that I'm going to die by suicide and that it is my choice to make.",
			'just letting this server know i intend to die this weekend.',
			"everyone's asleep. i'm going to die before they wake up",
			'hoy a la noche me mato. lejos de casa',
			'mi sono appena tagliata le vene e non chiamo nessuno.',
			"stasera m'accido, appena se ne vanno a dormire.",
			'jvais me buter avant la rentrée.',
			"demain j'me tue, c'est décidé.",
		]);
		exactly('none', [
			'I intend to die peacefully in my sleep at 100, surrounded by grandkids',
			"the film: he's going to die by suicide in act three",
		]);
	});

	test('leaving this world on a date, taking oneself out of the equation, letting go on a bridge; the same words at rest', () => {
		atLeast('high', [
			'im leaving this world on my birthday. 18 years is enough',
			'taking myself out of the equation for good. they can have their quiet house',
			"hey. you were all good friends to me. I'm on the bridge and I'm letting go in a minute",
		]);
		assert.equal(rules('i just want to fall asleep and never wake up, honestly'), 'concern');
		exactly('none', [
			"I'm leaving this world behind for a week in the mountains, no wifi",
			'taking myself out of the equation at work, let them sort the rota',
			"walking into the river now with the kids, water's lovely",
		]);
	});

	test('intent in the future tense in German and Italian, a promise kept for a birthday, dead "and not by accident"', () => {
		atLeast('high', [
			'Ich werde mich töten. Ich hab mit allen geredet, es hilft nichts.',
			'mi ucciderò prima di natale, ho già deciso',
			'ho promesso a me stessa che il giorno del mio compleanno mi sarei uccisa. manca una settimana.',
			"I'll be dead before they change the locks, and not by accident.",
			'no one would notice if i killed myself and im gonna. watch',
		]);
		exactly('none', ['ich werde mich tot lachen, wenn er das sieht', 'da piccola ero convinta che mi sarei sposata a vent’anni']);
	});

	test('no will to live, urges since the last cut, a relapse after a clean streak, an overdose written "od\'d"; the same words at rest', () => {
		atLeast('concern', [
			'Respected members, I am not having any will to live. I do my duty and come home and lie down.',
			'been 4 months since i last cut and the urge is so loud tonight. sitting on my hands',
			'exam stress is making me want to scratch my arms up again',
			'wouldnt mind if the tractor rolled on me some days. saves everyone the bother',
		]);
		atLeast('high', ['relapsed. 2 years clean from sh and i threw it away on a tuesday over nothing']);
		exactly('imminent', ["i od'd like 20 mins ago. feeling weird"]);
		exactly('none', [
			'odd, 20 mins ago the lights flickered',
			'six months since i last cut my hair and it shows',
			'i wouldnt mind if the rain held off for the barbecue',
		]);
	});

	test('recovery told as a story ("before", a dark period, "llegué a pensar", "cheguei a pensar"), a quit game, a chore, a power cut and sore feet are no crisis', () => {
		exactly('none', [
			"Before I wanted to die because of my debts and being far from my family. Now I'm ok already, I have good friends here.",
			'When I came to England I had a very dark period and I thought about suicide often. It is now 4 years later and I am much better.',
			'hace un tiempo estuve muy mal, llegué a pensar en quitarme la vida. ahora con la psicóloga y la medicación estoy bastante mejor',
			'já estive num sítio muito escuro, cheguei a pensar em acabar com tudo. agora, com a terapia, consigo olhar para trás',
			"died on the same jump in elden ring 40 times. i'm done. ending it tonight, uninstalling and going to bed",
			'wenn ich noch eine excel-tabelle formatieren muss bring ich mich um 🙃',
			'Power cut again from 2 to 6, no fan, whole street is dark. Inverter also died.',
			'after that 12 hour shift my feet want to die. my feet specifically. rest of me is fine',
			'kms, missed the easiest shot in the whole match and threw the round',
			'kms, me caí del mapa con la bandera a 2 segundos de ganar, perdón equipo',
		]);
		atLeast('high', ['cut again last night. deeper this time', 'Before I wanted to die. Now I want it again, tonight.']);
	});

	test('"im done. goodbye" alone gets a gentle reply; leaving a server does not', () => {
		assert.equal(rules('im done. goodbye'), 'concern');
		assert.equal(rules('im done with this server. goodbye'), 'none');
	});
});

describe('screen: the assessment', () => {
	test('never carries the text, only phrase ids', () => {
		const text = 'my secret is i want to kill myself tonight';
		const a = screen(text);
		for (const e of a.evidence) {
			assert.match(e, /^[a-z]{2}[.:][a-z_]+([!~][a-z~_]+)?$/);
			assert.ok(!text.includes(e));
		}
	});

	test('explains dropped signals', () => {
		assert.ok(screen("I'm not suicidal").evidence.includes('en.suicidal!negated'));
		assert.ok(screen('I killed myself in minecraft').evidence.includes('en.killed_myself!game'));
	});

	test('is deterministic and total', () => {
		const text = 'I want to die. my friend wants to kill herself. kms lol';
		assert.deepEqual(screen(text), screen(text));
		for (const t of ['', '   ', '!!!', '💀', '\u200b', 'a'.repeat(10_000)]) assert.equal(screen(t).level, 'none');
		assert.equal(screen(undefined as unknown as string).level, 'none');
	});
});
