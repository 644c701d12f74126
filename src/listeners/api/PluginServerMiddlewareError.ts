import { Listener } from '@sapphire/framework';
import { ServerEvent, type ApiRequest, type ApiResponse } from '@sapphire/plugin-api';
import { sendFailure } from '../../lib/api/errors.ts';

/** Replaces plugin-api's listener of the same name, which answers 500 with the raw error message. */
export class PluginServerMiddlewareError extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.MiddlewareError });
	}

	run(error: unknown, _request: ApiRequest, response: ApiResponse) {
		sendFailure(response, error, (message) => this.container.logger.error(message));
	}
}
