/**
 * DynamoDB's capacity arithmetic as AWS charges it: item sizes, write and read units, and what a write
 * costs each global secondary index. Pure functions on items as they travel on the wire (`{"S": "..."}`;
 * binary values as base64, or as bytes where an SDK client read them).
 *
 * Sources, and where they disagree the stricter reading is taken (never fewer units than AWS):
 * - Item size: AWS's "DynamoDB item sizes and formats" (CapacityUnitCalculations): attribute names and values
 *   as UTF-8 bytes, binary as raw bytes, null and booleans 1 byte, lists and maps 3 bytes plus 1 per element
 *   (a map's element also its name). Numbers: the docs say "about 1 byte per two significant digits, plus 1";
 *   captures pin it down. DynamoDB stores a number as base-100 digits aligned on the decimal point plus an
 *   exponent byte, and a negative one with a terminator byte: the rule of dynalite's item-size tests, which
 *   ran against AWS (mhart/dynalite db/index.js and test/putItem.js, "too big with ... number attribute"),
 *   and of dynoxide's number_size, "measured byte-exact against eu-west-2" (nubo-db/dynoxide src/types.rs).
 *   The two agree on every number with digits on both sides of the point; where the point lies outside the
 *   digits (120, 0.012) the aligned count is one byte larger than dynoxide's, and it is the one kept.
 * - Units: AWS's "DynamoDB read and write operations" and "Provisioned throughput" pages: a write unit per
 *   started KB of the larger of the item before and after the write (1 at least, also for a delete of
 *   nothing), a read unit per started 4 KB (half for an eventually consistent read, two for a transactional
 *   one; a read of nothing still costs the minimum), batches rounded per item, Query and Scan pages on the
 *   sum of the items read (before any filter or projection), a transaction's items twice.
 * - Indexes: dynoxide's index_capacity.rs, "captured against real DynamoDB in eu-west-2": an index is
 *   charged on the change to the entry it stores (nothing when the entry is absent before and after or
 *   unchanged, the entry's size when it appears or goes, both sizes when its key moves, the larger when it
 *   changes in place), on the projected entry's size, and transactions do not double it.
 */

/** A DynamoDB attribute value as JSON carries it (binary base64), or as the SDK returns it (binary bytes). */
export interface AttributeValue {
  S?: string;
  N?: string;
  B?: string | Uint8Array;
  SS?: string[];
  NS?: string[];
  BS?: (string | Uint8Array)[];
  M?: Item;
  L?: AttributeValue[];
  NULL?: boolean;
  BOOL?: boolean;
}

export type Item = Record<string, AttributeValue>;

/** A table's keys and indexes, as DescribeTable gives them. */
export interface TableSchema {
  name: string;
  partitionKey: string;
  sortKey?: string;
  indexes: IndexSchema[];
  /** PAY_PER_REQUEST: hot partitions answer ThrottlingException; provisioned tables ProvisionedThroughputExceededException. */
  onDemand: boolean;
}

export interface IndexSchema {
  name: string;
  partitionKey: string;
  sortKey?: string;
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  /** INCLUDE's non-key attributes. */
  include: readonly string[];
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

const binaryBytes = (value: string | Uint8Array) =>
  typeof value === 'string' ? Buffer.from(value, 'base64').length : value.byteLength;

const NUMBER = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Bytes a number takes in an item: one per base-100 digit, the digits aligned on the decimal point, plus one
 * for the exponent and one more when it is negative (zero: 1).
 */
export function numberSize(text: string): number {
  const match = NUMBER.exec(text.trim());
  // Not a number DynamoDB would store (it refuses it first); a size no valid number of that length exceeds.
  if (!match) return Math.ceil(text.length / 2) + 2;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const first = digits.search(/[1-9]/);
  if (first < 0) return 1;
  const significant = digits.slice(first).replace(/0+$/, '');
  // The power of ten of the first significant digit, and of the last.
  const top = whole.length - 1 - first + Number(exponent);
  const bottom = top - significant.length + 1;
  const base100Digits = Math.floor(top / 2) - Math.floor(bottom / 2) + 1;
  return base100Digits + 1 + (sign === '-' ? 1 : 0);
}

/** Bytes of one value, without its attribute name. */
export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8Bytes(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return binaryBytes(value.B);
  if (value.SS) return value.SS.reduce((total, member) => total + utf8Bytes(member), 0);
  if (value.NS) return value.NS.reduce((total, member) => total + numberSize(member), 0);
  if (value.BS) return value.BS.reduce((total, member) => total + binaryBytes(member), 0);
  if (value.L) return 3 + value.L.reduce((total, element) => total + 1 + valueSize(element), 0);
  if (value.M)
    return (
      3 +
      Object.entries(value.M).reduce(
        (total, [name, element]) => total + 1 + utf8Bytes(name) + valueSize(element),
        0,
      )
    );
  // NULL and BOOL.
  return 1;
}

/** An item's size as DynamoDB counts it: each attribute's name and value. */
export function itemSize(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8Bytes(name) + valueSize(value);
  return size;
}

/** Write units of writing `bytes`: one per started KB, one at least. */
export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

export type ReadMode = 'eventual' | 'strong' | 'transactional';

const READ_FACTOR: Record<ReadMode, number> = { eventual: 0.5, strong: 1, transactional: 2 };

/**
 * Read units of reading `bytes` (one item, or the items of one Query or Scan page together): one per
 * started 4 KB, one at least, times 0.5 eventually consistent or 2 in a transaction.
 */
export const readUnits = (bytes: number, mode: ReadMode): number =>
  Math.max(1, Math.ceil(bytes / 4096)) * READ_FACTOR[mode];

/**
 * The table's write units for one write: by the larger of the item before and after (absent: undefined).
 * A delete or a failed condition on nothing still costs one.
 */
export function tableWriteUnits(before: Item | undefined, after: Item | undefined): number {
  return Math.max(writeUnits(before ? itemSize(before) : 0), writeUnits(after ? itemSize(after) : 0));
}

/** One write an index takes: where (its partition key value) and how many units. */
export interface IndexWrite {
  index: string;
  partitionKey: string;
  units: number;
}

/** A key attribute's value as text: strings and numbers as they are, binary as base64. */
export function keyText(value: AttributeValue | undefined): string | undefined {
  if (!value) return undefined;
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return value.N;
  if (value.B !== undefined)
    return typeof value.B === 'string' ? value.B : Buffer.from(value.B).toString('base64');
  return undefined;
}

/** The entry an index stores for `item`, or undefined when the item is not in the (sparse) index. */
export function indexEntry(
  item: Item | undefined,
  index: IndexSchema,
  table: TableSchema,
): { partitionKey: string; sortKey: string; entry: Item } | undefined {
  if (!item) return undefined;
  const partitionKey = keyText(item[index.partitionKey]);
  const sortKey = index.sortKey === undefined ? '' : keyText(item[index.sortKey]);
  if (partitionKey === undefined || sortKey === undefined) return undefined;
  if (index.projection === 'ALL') return { partitionKey, sortKey, entry: item };
  const kept = new Set([table.partitionKey, table.sortKey, index.partitionKey, index.sortKey]);
  if (index.projection === 'INCLUDE') for (const name of index.include) kept.add(name);
  const entry: Item = {};
  for (const [name, value] of Object.entries(item)) if (kept.has(name)) entry[name] = value;
  return { partitionKey, sortKey, entry };
}

/** The writes one change of an item (before -> after; absent: undefined) costs an index. */
export function indexWrites(
  before: Item | undefined,
  after: Item | undefined,
  index: IndexSchema,
  table: TableSchema,
): IndexWrite[] {
  const old = indexEntry(before, index, table);
  const next = indexEntry(after, index, table);
  const write = (partitionKey: string, units: number): IndexWrite => ({
    index: index.name,
    partitionKey,
    units,
  });
  if (!old && !next) return [];
  if (!old && next) return [write(next.partitionKey, writeUnits(itemSize(next.entry)))];
  if (old && !next) return [write(old.partitionKey, writeUnits(itemSize(old.entry)))];
  if (!old || !next) return [];
  const oldUnits = writeUnits(itemSize(old.entry));
  const newUnits = writeUnits(itemSize(next.entry));
  if (old.partitionKey !== next.partitionKey || old.sortKey !== next.sortKey)
    return [write(old.partitionKey, oldUnits), write(next.partitionKey, newUnits)];
  if (sameItem(old.entry, next.entry)) return [];
  return [write(next.partitionKey, Math.max(oldUnits, newUnits))];
}

/** Whether two items hold the same values (sets compared as sets, lists in order). */
function sameItem(a: Item, b: Item): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) => b[name] !== undefined && sameValue(a[name] as AttributeValue, b[name]));
}

function sameValue(a: AttributeValue, b: AttributeValue): boolean {
  const sameSet = (
    x: readonly unknown[] | undefined,
    y: readonly unknown[] | undefined,
    text: (member: unknown) => string = String,
  ) => {
    if (!x || !y || x.length !== y.length) return false;
    const members = new Set(x.map(text));
    return y.every((member) => members.has(text(member)));
  };
  const binary = (value: unknown) =>
    typeof value === 'string' ? value : Buffer.from(value as Uint8Array).toString('base64');
  if (a.S !== undefined || b.S !== undefined) return a.S === b.S;
  if (a.N !== undefined || b.N !== undefined) return a.N === b.N;
  if (a.B !== undefined || b.B !== undefined)
    return a.B !== undefined && b.B !== undefined && binary(a.B) === binary(b.B);
  if (a.SS || b.SS) return sameSet(a.SS, b.SS);
  if (a.NS || b.NS) return sameSet(a.NS, b.NS);
  if (a.BS || b.BS) return sameSet(a.BS, b.BS, binary);
  if (a.L || b.L)
    return (
      !!a.L &&
      !!b.L &&
      a.L.length === b.L.length &&
      a.L.every((element, i) => sameValue(element, b.L?.[i] as AttributeValue))
    );
  if (a.M || b.M) return !!a.M && !!b.M && sameItem(a.M, b.M);
  return a.NULL === b.NULL && a.BOOL === b.BOOL;
}
