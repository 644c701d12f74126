import { Type } from '@mikro-orm/core';
import { DEFAULT_SALT } from '../core/config.ts';
import { FieldCipher, type FieldLocation } from './field-cipher.ts';

let cipher = new FieldCipher(undefined, [DEFAULT_SALT]);

/** The cipher every encrypted column uses; set once at startup from the configuration. */
export function useFieldCipher(next: FieldCipher): void {
	cipher = next;
}

export function fieldCipher(): FieldCipher {
	return cipher;
}

/**
 * A text column stored through the field cipher. Create one instance per property (`p.type(new EncryptedText())`)
 * so each knows its own table and column for the associated data.
 */
export class EncryptedText extends Type<string | null, string | null> {
	location(): FieldLocation {
		return { table: this.meta?.tableName ?? 'unknown', column: this.prop?.fieldNames?.[0] ?? 'unknown' };
	}

	override convertToDatabaseValue(value: string | null): string | null {
		return value === null || value === undefined ? null : cipher.seal(value, this.location());
	}

	override convertToJSValue(value: string | null): string | null {
		return value === null || value === undefined ? null : cipher.open(value, this.location());
	}

	// Random IVs make every encryption differ: compare what the values say, or every flush rewrites every row.
	override compareValues(a: string | null, b: string | null): boolean {
		if (a === b) return true;
		if (a === null || b === null) return false;
		try {
			return cipher.open(a, this.location()) === cipher.open(b, this.location());
		} catch {
			return false;
		}
	}

	override getColumnType(): string {
		return 'text';
	}

	override get runtimeType(): string {
		return 'string';
	}
}
