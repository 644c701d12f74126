import { Listener } from '@sapphire/framework';
import { ServerEvent } from '@sapphire/plugin-api';
import { sendError } from '../../lib/api/errors.ts';
import type { HttpRequest, HttpResponse } from '../../lib/api/http.ts';

export class PluginServerRouterBranchNotFound extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.RouterBranchNotFound });
	}

	run(_request: HttpRequest, response: HttpResponse) {
		sendError(response, 404, 'Not found');
	}
}
