import { Listener } from '@sapphire/framework';
import { ServerEvent, type ApiRequest, type ApiResponse, type RouterBranch } from '@sapphire/plugin-api';
import { sendError } from '../../lib/api/errors.ts';

export class PluginServerRouterBranchMethodNotAllowed extends Listener {
	constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'server', event: ServerEvent.RouterBranchMethodNotAllowed });
	}

	run(request: ApiRequest, response: ApiResponse, branch: RouterBranch) {
		const allowed = branch.node ? [...branch.node.methods()].join(', ') : '';
		sendError(response, 405, `Method ${request.method ?? ''} is not allowed here`, allowed ? { Allow: allowed } : {});
	}
}
