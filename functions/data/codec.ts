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
  /**
   * A record stored flat, its fields as attributes of the item named `prefix` and their own attribute's
   * name; read as absent when the item has none of them.
   */
  flat?: { prefix: string; codec: Codec<NonNullable<V>> };
}

/** Every field of `T` with how it is stored: leaving one out, or naming one `T` lacks, does not compile. */
export type Fields<T> = { [K in keyof T]-?: FieldSpec<T[K]> };

export interface Codec<T> {
  /** The attributes the record is stored in. */
  readonly attributes: readonly string[];
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
    attributes: specs.flatMap(({ attr, spec }) =>
      spec.flat ? spec.flat.codec.attributes.map((inner) => `${spec.flat?.prefix}${inner}`) : [attr],
    ),
    toItem(record) {
      const item: Item = {};
      for (const { field, attr, spec } of specs) {
        if (spec.flat) {
          const value = record[field];
          if (value === undefined) continue;
          for (const [inner, stored] of Object.entries(spec.flat.codec.toItem(value as never)))
            item[`${spec.flat.prefix}${inner}`] = stored;
        } else if (!spec.read) item[attr] = record[field];
      }
      return item;
    },
    fromItem(item) {
      const record: Record<string, unknown> = {};
      for (const { field, attr, spec } of specs) {
        if (spec.flat) {
          record[field] = readFlat(item, spec.flat);
          continue;
        }
        const stored = item[attr];
        record[field] = spec.read
          ? spec.read(stored)
          : (stored ?? (Array.isArray(spec.absent) ? [...spec.absent] : spec.absent));
      }
      return record as T;
    },
  };
}

function readFlat<V>(item: Item, { prefix, codec }: { prefix: string; codec: Codec<V> }): V | undefined {
  const inner: Item = {};
  for (const attr of codec.attributes) {
    const stored = item[`${prefix}${attr}`];
    if (stored !== undefined) inner[attr] = stored;
  }
  return Object.keys(inner).length > 0 ? codec.fromItem(inner) : undefined;
}

/** A string set as a sorted list (a set the item lacks, because its last member went, as none). */
export const sortedSet = (stored: unknown): string[] => (stored ? [...(stored as Set<string>)].sort() : []);
