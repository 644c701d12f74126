import { Listener } from '@sapphire/framework';
import { ServerEvent } from '@sapphire/plugin-api';
import { sendFailure } from '../../lib/api/http-error.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

/** Replaces plugin-api's listener of the same name, which answers 500 with the raw error message. */
export class PluginRouteError extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.RouteError });
	}

	run(error: unknown, _request: HttpRequest, response: HttpResponse) {
		sendFailure(response, error, (message) => this.container.logger.error(message));
	}
}
