import type { Route } from '@sapphire/plugin-api';
import type { z } from 'zod';
import { listTestimonials } from '../../lib/feedback/store.ts';
import { ApiRoute } from '../../lib/api/route.ts';
import { sendJson } from '../../lib/api/json-response.ts';
import { Testimonials, TestimonialsQuery } from '../../lib/api/schemas.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

export class TestimonialsRoute extends ApiRoute<never, z.output<typeof TestimonialsQuery>> {
	constructor(context: Route.LoaderContext) {
		super(context, {
			doc: {
				summary: 'Approved public testimonials',
				description: 'Only feedback an owner approved and marked public. Featured first, then newest first.',
				tags: ['Community'],
				database: true,
				query: TestimonialsQuery,
				responses: { 200: { description: 'The testimonials.', schema: Testimonials } },
			},
		});
	}

	async run(request: HttpRequest, response: HttpResponse) {
		const { limit } = this.query(request);
		sendJson(response, 200, await listTestimonials(this.container.db.orm.em.fork(), limit));
	}
}
