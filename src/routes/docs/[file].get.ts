import type { Route } from '@sapphire/plugin-api';
import { docsAsset } from '../../lib/api/docs.ts';
import { HttpError } from '../../lib/api/http-error.ts';
import { ApiRoute } from '../../lib/api/route.ts';
import type { HttpRequest, HttpResponse } from '../../lib/framework/http-request.ts';

/** The files of the `/docs` page (an allowlist); left out of the OpenAPI document. */
export class DocsAssetRoute extends ApiRoute {
	constructor(context: Route.LoaderContext) {
		super(context, { doc: { summary: 'A file of the docs page', hidden: true, responses: {} } });
	}

	run(request: HttpRequest, response: HttpResponse) {
		const asset = docsAsset(request.params.file ?? '');
		if (!asset) throw new HttpError(404, 'Not found');
		response.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.body.length, 'Cache-Control': 'public, max-age=86400' });
		response.end(asset.body);
	}
}
