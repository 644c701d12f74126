import type { Route } from '@sapphire/plugin-api';
import type { z } from 'zod';
import { answerChat } from '../../lib/companion/one-shot-chat.ts';
import { ApiRoute } from '../../lib/api/route.ts';
import { sendJson } from '../../lib/api/json-response.ts';
import { ChatRequest, ChatResponse, ErrorBody } from '../../lib/api/schemas.ts';
import { renderCrisisReply } from '../../lib/crisis/resources.ts';
import { screen } from '../../lib/crisis/screen.ts';
import { countCrisisScreen } from '../../lib/operations/metrics.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

export class ChatRoute extends ApiRoute<z.output<typeof ChatRequest>> {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'One supportive reply',
				description:
					'One message in, one reply out; no conversation state. The message is crisis-screened first: when it may be about a crisis, the reply starts with vetted support resources, and it is always 200 then, even when AI is unavailable.',
				tags: ['Chat'],
				auth: true,
				limit: 'chat',
				body: ChatRequest,
				responses: {
					200: { description: 'The reply.', schema: ChatResponse },
					502: { description: 'The AI provider failed or did not answer in time.', schema: ErrorBody },
					503: { description: 'AI is not configured on this server (no OPENAI_API_KEY), or the owners turned it off.', schema: ErrorBody },
				},
			},
		});
	}

	async run(request: HttpRequest, response: HttpResponse) {
		const { ai, db, logger } = this.container;
		const reply = await answerChat(this.body(request).message, {
			ai,
			screen: (text) => {
				const assessment = screen(text);
				countCrisisScreen(assessment.level, 'api');
				return assessment;
			},
			renderCrisisReply,
			em: db.orm.em.fork(),
			onRecordError: (error) =>
				logger.error(`POST /v1/chat: could not record the conversation: ${error instanceof Error ? error.name : 'error'}`),
		});
		sendJson(response, 200, { reply });
	}
}
