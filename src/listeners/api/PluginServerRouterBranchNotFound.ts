import { Listener } from '@sapphire/framework';
import { ServerEvent, type ApiRequest, type ApiResponse } from '@sapphire/plugin-api';
import { sendError } from '../../lib/api/errors.ts';

export class PluginServerRouterBranchNotFound extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.RouterBranchNotFound });
	}

	run(_request: ApiRequest, response: ApiResponse) {
		sendError(response, 404, 'Not found');
	}
}
