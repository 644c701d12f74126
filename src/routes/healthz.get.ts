import { Route } from '@sapphire/plugin-api';

/** Liveness: answers without touching the database, so a database outage does not restart the process. */
export class HealthRoute extends Route {
	run(_request: Route.Request, response: Route.Response) {
		response.json({ status: 'ok' });
	}
}
