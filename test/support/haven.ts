import { parseConfig } from '../../src/lib/core/config.ts';
import { startHaven, type Haven } from '../../src/index.ts';

export interface TestHaven extends Haven {
	url: string;
}

/** Starts the real service in this process (one at a time: Sapphire's container is process-wide). */
export async function startTestHaven(env: Record<string, string | undefined>): Promise<TestHaven> {
	const haven = await startHaven(parseConfig(env));
	if (!haven.url) throw new Error('Haven did not start its HTTP API');
	return haven as TestHaven;
}
