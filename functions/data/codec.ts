import { snakeCase } from '../shared/field-names';
import type { Item } from './client';

/** How one field of a record is stored; every option may be left out. */
export interface FieldSpec<V> {
  /** The attribute's name: the field's name in snake_case unless given. */
  attr?: string;
  /** What a read gives for an item without the attribute (a list stored before the field existed). */
  absent?: V;
  /**
   * For an attribute that update expressions maintain (a string set, a counter): never written from the
   * record, read through `read`.
   */
  read?: (stored: unknown) => V;
}

/** Every field of `T` with how it is stored: leaving one out, or naming one `T` lacks, does not compile. */
export type Fields<T> = { [K in keyof T]-?: FieldSpec<T[K]> };

export interface Codec<T> {
  /** The record's attributes (without keys or `entity`: the entity's module adds those). */
  toItem(record: T): Item;
  fromItem(item: Item): T;
}

/**
 * Both directions of an entity's mapping between its record and its DynamoDB item, from one list of its
 * fields. Reads give the fields in the list's order; undefined fields are not written (the document client
 * removes undefined values).
 */
export function codec<T>(fields: Fields<T>): Codec<T> {
  const specs = (Object.entries(fields) as [keyof T & string, FieldSpec<unknown>][]).map(([field, spec]) => ({
    field,
    attr: spec.attr ?? snakeCase(field),
    spec,
  }));
  return {
    toItem(record) {
      const item: Item = {};
      for (const { field, attr, spec } of specs) if (!spec.read) item[attr] = record[field];
      return item;
    },
    fromItem(item) {
      const record: Record<string, unknown> = {};
      for (const { field, attr, spec } of specs) {
        const stored = item[attr];
        record[field] = spec.read
          ? spec.read(stored)
          : (stored ?? (Array.isArray(spec.absent) ? [...spec.absent] : spec.absent));
      }
      return record as T;
    },
  };
}

/** A string set as a sorted list (a set the item lacks, because its last member went, as none). */
export const sortedSet = (stored: unknown): string[] => (stored ? [...(stored as Set<string>)].sort() : []);
