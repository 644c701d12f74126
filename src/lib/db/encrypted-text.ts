import { Type, type EntityMetadata, type EntityProperty, type EventSubscriber, type FlushEventArgs, type TransformContext } from '@mikro-orm/core';
import { DEFAULT_SALT } from '../core/config.ts';
import { DecryptionError, FieldCipher, type FieldLocation } from './field-cipher.ts';

let cipher = new FieldCipher(undefined, [DEFAULT_SALT]);
let reportUnreadable: (error: DecryptionError) => void = (error) => console.warn(error.message);

/** The cipher every encrypted column uses; set once at startup from the configuration. */
export function useFieldCipher(next: FieldCipher): void {
	cipher = next;
}

export function fieldCipher(): FieldCipher {
	return cipher;
}

/**
 * Where a value that cannot be decrypted is reported (the service's logger at startup). The error names the table,
 * column and row id and the reason, never the value.
 */
export function onUnreadable(report: (error: DecryptionError) => void): void {
	reportUnreadable = report;
}

export interface EncryptedTextOptions {
	/** The property holding the row's owner (bound into the associated data), when the table has one. */
	owner?: string;
}

// Put in front of the stored value by the SELECT (see convertToJSValueSQL): `<id>:<owner>:<stored>`. Ids and owners
// are digits, and a stored value starts with `hv`, so the split is never ambiguous.
const WITH_ROW = /^(\d+):(\d*):(hv[\s\S]*)$/;

/**
 * A text column stored through the field cipher, bound to its row. Create one instance per property
 * (`p.type(new EncryptedText({ owner: 'userId' }))`) so each knows its table, column and owner column.
 *
 * In memory the property holds the plain text, and the ORM's change tracking compares plain text. Encryption happens
 * in two places that know the row:
 * - reading: the SELECT returns `<id>:<owner>:<stored>` (convertToJSValueSQL), so the value is checked against the
 *   row it was read from;
 * - writing: `FieldSealer` (an ORM flush subscriber) encrypts each value once the row's id is known.
 * Writing an encrypted column any other way (a query-level insert or update with data) is refused, so a value can
 * never reach the database in the clear or unbound.
 */
export class EncryptedText extends Type<string | null, string | null> {
	readonly ownerProperty: string | undefined;

	constructor(options: EncryptedTextOptions = {}) {
		super();
		this.ownerProperty = options.owner;
	}

	location(id?: string | number, owner?: string | null): FieldLocation {
		return { table: this.meta?.tableName ?? 'unknown', column: this.prop?.fieldNames?.[0] ?? 'unknown', id, owner };
	}

	override convertToDatabaseValue(value: string | null, _platform?: unknown, context?: TransformContext): string | null {
		if (context?.mode === 'query' || context?.mode === 'query-data') {
			throw new Error(`${this.location().table}.${this.location().column} is encrypted: write it through em.create/em.assign and flush`);
		}
		// Only change tracking sees this: the flush subscriber encrypts before anything is written.
		return value === null || value === undefined ? null : value;
	}

	override convertToJSValue(value: string | null): string | null {
		if (value === null || value === undefined) return null;
		const row = WITH_ROW.exec(value);
		const at = row ? this.location(row[1], row[2] || null) : this.location();
		try {
			return cipher.open(row ? row[3]! : value, at);
		} catch (error) {
			if (error instanceof DecryptionError) reportUnreadable(error);
			throw error;
		}
	}

	override convertToJSValueSQL(key: string): string {
		const meta = this.meta;
		const column = this.prop?.fieldNames?.[0];
		if (!meta || !column) return key;
		const pk = meta.properties[meta.primaryKeys[0] as keyof typeof meta.properties]?.fieldNames?.[0] ?? 'id';
		const ownerField = this.ownerProperty ? meta.properties[this.ownerProperty as keyof typeof meta.properties]?.fieldNames?.[0] : undefined;
		// `key` is the quoted column, with the table alias in front when there is one: use the same alias for the others.
		const quoted = `"${column}"`;
		const prefix = key.endsWith(quoted) ? key.slice(0, -quoted.length) : '';
		const owner = ownerField ? `coalesce(${prefix}"${ownerField}", '')` : `''`;
		return `(${prefix}"${pk}"::text || ':' || ${owner} || ':' || ${key})`;
	}

	override compareAsType(): string {
		return 'string';
	}

	override getColumnType(): string {
		return 'text';
	}

	override get runtimeType(): string {
		return 'string';
	}
}

export function encryptedProperties(meta: EntityMetadata): EntityProperty[] {
	return meta.props.filter((prop) => prop.customType instanceof EncryptedText);
}

interface Sealable {
	meta: EntityMetadata;
	entity: Record<string, unknown>;
	payload: Record<string, unknown>;
	props: EntityProperty[];
	type: string;
}

/**
 * Encrypts encrypted columns at flush time, bound to their row. A new row's serial id is drawn from its sequence first
 * (one round trip per table and flush, however many rows), so the value is sealed to its final id in the same INSERT:
 * no placeholder, no second write.
 */
export class FieldSealer implements EventSubscriber {
	async onFlush({ em, uow }: FlushEventArgs): Promise<void> {
		const work: Sealable[] = [];
		for (const changeSet of uow.getChangeSets()) {
			if (changeSet.type !== 'create' && changeSet.type !== 'update') continue;
			const props = encryptedProperties(changeSet.meta);
			if (props.length) {
				work.push({
					meta: changeSet.meta,
					entity: changeSet.entity as Record<string, unknown>,
					payload: changeSet.payload as Record<string, unknown>,
					props,
					type: changeSet.type,
				});
			}
		}
		if (!work.length) return;

		// New rows need their id before they can be sealed: draw ids from each table's sequence, in one query per table.
		const needIds = new Map<EntityMetadata, Sealable[]>();
		for (const item of work) {
			const pk = item.meta.primaryKeys[0]!;
			if (item.type === 'create' && item.entity[pk] == null) needIds.set(item.meta, [...(needIds.get(item.meta) ?? []), item]);
		}
		for (const [meta, items] of needIds) {
			const pk = meta.properties[meta.primaryKeys[0] as keyof typeof meta.properties]!;
			const rows = await em
				.getConnection('write')
				.execute<{ id: string | number }[]>(
					`select nextval(pg_get_serial_sequence(?, ?)) as id from generate_series(1, ?)`,
					[`"${meta.tableName}"`, pk.fieldNames[0], items.length],
					'all',
					em.getTransactionContext(),
				);
			items.forEach((item, index) => {
				const id = Number(rows[index]!.id);
				item.entity[pk.name] = id;
				item.payload[pk.name] = id;
			});
		}

		for (const { meta, entity, payload, props, type } of work) {
			const id = entity[meta.primaryKeys[0]!] as string | number;
			for (const prop of props) {
				const column = prop.customType as EncryptedText;
				const ownerChanged = type === 'update' && column.ownerProperty !== undefined && column.ownerProperty in payload;
				if (!(prop.name in payload) && !ownerChanged) continue;
				const value = entity[prop.name];
				if (value === undefined) continue; // not loaded: nothing to re-seal
				const owner = column.ownerProperty ? ((entity[column.ownerProperty] as string | null | undefined) ?? null) : null;
				payload[prop.name] = value === null ? null : cipher.seal(String(value), column.location(id, owner));
			}
		}
	}
}
