import { Listener } from '@sapphire/framework';
import { ServerEvent, type RouterBranch } from '@sapphire/plugin-api';
import { sendError } from '../../lib/api/http-error.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

export class PluginServerRouterBranchMethodNotAllowed extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.RouterBranchMethodNotAllowed });
	}

	run(request: HttpRequest, response: HttpResponse, branch: RouterBranch) {
		const allowed = branch.node ? [...branch.node.methods()].join(', ') : '';
		// A folder of routes (e.g. `/v1`) is a branch without methods of its own: there is nothing here.
		if (!allowed) sendError(response, 404, 'Not found');
		else sendError(response, 405, `Method ${request.method ?? ''} is not allowed here`, { Allow: allowed });
	}
}
