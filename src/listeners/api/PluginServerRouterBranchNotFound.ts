import { Listener } from '@sapphire/framework';
import { ServerEvent } from '@sapphire/plugin-api';
import { sendError } from '../../lib/api/http-error.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

export class PluginServerRouterBranchNotFound extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.RouterBranchNotFound });
	}

	run(_request: HttpRequest, response: HttpResponse) {
		sendError(response, 404, 'Not found');
	}
}
