import type { EntityManager } from '@mikro-orm/postgresql';
import { normalizeCountry } from '../crisis/resources.ts';

/**
 * A person's own safety preferences, in `users` (UserProfile): the country of their crisis resources (over the
 * server's) and whether Haven screens their DMs and mentions. `/crisis` is always screened: asking for help is never
 * opted out of. Reading never creates a row; a row is created the first time a person changes something.
 */

export interface UserSettings {
	/** A code of the resources directory, or null (then the server's country, else the international directory). */
	country: string | null;
	/** True: DMs and mentions are not screened (they still get ordinary replies). */
	screeningOptOut: boolean;
}

export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = Object.freeze({ country: null, screeningOptOut: false });

export async function getUserSettings(em: EntityManager, userId: string): Promise<UserSettings> {
	const rows = await em
		.getConnection()
		.execute<{ country: string | null; screening_opt_out: boolean }[]>('select country, screening_opt_out from users where id = ?', [userId]);
	const row = rows[0];
	if (!row) return { ...DEFAULT_USER_SETTINGS };
	return { country: normalizeCountry(row.country), screeningOptOut: row.screening_opt_out === true };
}

export interface UserSettingsPatch {
	/** null clears it (back to the server's country). */
	country?: string | null;
	screeningOptOut?: boolean;
}

/** Upserts the person's row with the changed fields; returns the result. Unknown countries are refused. */
export async function updateUserSettings(em: EntityManager, userId: string, patch: UserSettingsPatch, now = new Date()): Promise<UserSettings> {
	let country: string | null | undefined;
	if (patch.country !== undefined) {
		country = patch.country === null ? null : normalizeCountry(patch.country);
		if (patch.country !== null && country === null) throw new RangeError(`unknown country code: ${patch.country}`);
	}
	const sets: string[] = [];
	const values: unknown[] = [];
	if (country !== undefined) {
		sets.push('country = excluded.country');
	}
	if (patch.screeningOptOut !== undefined) sets.push('screening_opt_out = excluded.screening_opt_out');
	sets.push('updated_at = excluded.updated_at');
	values.push(userId, country ?? null, patch.screeningOptOut ?? false, now, now);
	const rows = await em.getConnection().execute<{ country: string | null; screening_opt_out: boolean }[]>(
		`insert into users (id, country, screening_opt_out, memory_enabled, created_at, updated_at) values (?, ?, ?, true, ?, ?)
		 on conflict (id) do update set ${sets.join(', ')}
		 returning country, screening_opt_out`,
		values,
	);
	const row = rows[0]!;
	return { country: normalizeCountry(row.country), screeningOptOut: row.screening_opt_out === true };
}

/** Whose country decides the resources: the person's own, else the server's, else null (international). */
export function resourceCountry(user: Pick<UserSettings, 'country'> | undefined, guild: { country: string | null } | undefined): string | null {
	return user?.country ?? guild?.country ?? null;
}
