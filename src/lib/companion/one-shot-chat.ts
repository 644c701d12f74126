import type { EntityManager } from '@mikro-orm/postgresql';
import { AiError, type Ai } from '../ai/index.ts';
import { Conversation, CrisisEvent } from '../db/index.ts';
import { HttpError } from '../api/http-error.ts';

/** The crisis screen's verdict (the parts the chat needs). */
export interface Assessment {
	level: 'none' | 'concern' | 'high' | 'imminent';
	categories: string[];
}

export interface ChatDeps<A extends Assessment> {
	ai: Ai;
	screen: (text: string) => A;
	/** Vetted resources for an assessment; `null` country = the international directory. */
	renderCrisisReply: (assessment: A, country: string | null) => string;
	em: EntityManager;
	timeoutMs?: number;
	/** Counting failed (e.g. the database is down): the person still gets the reply. */
	onRecordError?: (error: unknown) => void;
}

/**
 * `POST /v1/chat`: one supportive completion for one message, screened first.
 * - No risk found: the AI reply (200); 503 when AI is not configured or the owners turned it off, 502 when the provider fails or times out.
 * - Risk found: the reply starts with the deterministic resources, then the AI reply (asked to be careful) when there
 *   is one. A person in crisis always gets 200 with the resources, even when AI is missing or failing. A crisis event
 *   (no text, no user) is recorded.
 * Every answered message is counted as a conversation (best effort: a database failure never withholds the reply). The provider's error text never leaves `AiError`.
 */
export async function answerChat<A extends Assessment>(message: string, deps: ChatDeps<A>): Promise<string> {
	const assessment = deps.screen(message);
	const crisis = assessment.level !== 'none';
	let aiReply: string | undefined;
	try {
		aiReply = await deps.ai.complete([{ role: 'user', content: message }], { careful: crisis, timeoutMs: deps.timeoutMs });
	} catch (error) {
		if (!(error instanceof AiError)) throw error;
		if (!crisis)
			throw error.kind === 'not_configured'
				? new HttpError(503, 'AI is not configured on this server')
				: error.kind === 'disabled'
					? new HttpError(503, 'AI is turned off on this server for now')
					: new HttpError(502, 'The AI provider did not answer; try again later');
	}
	const reply = crisis ? [deps.renderCrisisReply(assessment, null), aiReply].filter(Boolean).join('\n\n') : aiReply!;

	try {
		deps.em.create(Conversation, { source: 'api', userId: null, guildId: null });
		if (crisis) {
			deps.em.create(CrisisEvent, {
				level: assessment.level,
				categories: assessment.categories,
				trigger: 'api',
				guildId: null,
				userId: null,
				details: null,
			});
		}
		await deps.em.flush();
	} catch (error) {
		deps.onRecordError?.(error);
	}
	return reply;
}
