import type { Route } from '@sapphire/plugin-api';
import type { z } from 'zod';
import { submitFeedback } from '../../lib/feedback/store.ts';
import { announceNewFeedback } from '../../lib/feedback/announce.ts';
import { ApiRoute } from '../../lib/api/route.ts';
import { sendJson } from '../../lib/api/json-response.ts';
import { FeedbackRequest, FeedbackResponse } from '../../lib/api/schemas.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

export class FeedbackRoute extends ApiRoute<z.output<typeof FeedbackRequest>> {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'Send feedback',
				description:
					"Stores the feedback (encrypted) in the owners' review queue before answering. It becomes a testimonial only if an owner approves it and marks it public.",
				tags: ['Community'],
				database: true,
				auth: true,
				limit: 'feedback',
				body: FeedbackRequest,
				responses: { 202: { description: 'Stored in the review queue.', schema: FeedbackResponse } },
			},
		});
	}

	async run(request: HttpRequest, response: HttpResponse) {
		const { userId, message } = this.body(request);
		const row = await submitFeedback(this.container.db.orm.em.fork(), { userId, message, source: 'api' });
		void announceNewFeedback(row.id);
		sendJson(response, 202, { status: 'received' });
	}
}
