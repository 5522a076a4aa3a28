/** What a DynamoDB call is charged, on which partition, and the capacity counts its answer shows (dynamodb-metering.ts). */
import type { Item, TableSchema } from './dynamodb-capacity';
import { indexWrites, keyText, tableWriteUnits } from './dynamodb-capacity';
import type { Json } from './dynamodb-exchange';
import type { Charge } from './dynamodb-partitions';

export type Key = Item;

/** A table's name, from a TableName that may be the table's ARN. */
export const plainTableName = (name: unknown) =>
  String(name ?? '').replace(/^arn:[^:]*:dynamodb:[^:]*:[^:]*:table\//, '');

/** An item's key, in the table's key attributes. */
export function keyOf(table: TableSchema, item: Item): Key {
  const key: Key = {};
  for (const name of [table.partitionKey, table.sortKey]) if (name && item[name]) key[name] = item[name];
  return key;
}

/** Tells items apart by table and key. */
export function itemId(table: TableSchema, item: Item): string {
  return JSON.stringify([
    table.name,
    keyText(item[table.partitionKey]),
    table.sortKey ? keyText(item[table.sortKey]) : null,
  ]);
}

export const partitionCharge = (
  table: TableSchema,
  key: Key,
  access: Charge['access'],
  units: number,
): Charge => ({
  table: table.name,
  partitionKey: keyText(key[table.partitionKey]) ?? '',
  access,
  units,
});

export const samePartition = (a: Charge, b: Charge) =>
  a.table === b.table && a.index === b.index && a.partitionKey === b.partitionKey;

/** The units one write of an item (before -> after) costs the table's partition and each index's; `factor` 2 in a transaction (the table's only). */
export function writeCharges(
  table: TableSchema,
  key: Key,
  before: Item | undefined,
  after: Item | undefined,
  factor = 1,
): Charge[] {
  const charges = [partitionCharge(table, key, 'write', factor * tableWriteUnits(before, after))];
  for (const index of table.indexes)
    for (const write of indexWrites(before, after, index, table))
      charges.push({
        table: table.name,
        index: write.index,
        partitionKey: write.partitionKey,
        access: 'write',
        units: write.units,
      });
  return charges;
}

export const isProjected = (request: Json | undefined) =>
  request?.ProjectionExpression !== undefined || request?.AttributesToGet !== undefined;

/**
 * The partition key value a Query names: `key = :value` in its KeyConditionExpression (either way round,
 * the name possibly a `#placeholder`), or the legacy KeyConditions' EQ.
 */
export function queryPartitionKey(input: Json, keyName: string): string | undefined {
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, Item[string]>;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const legacy = (
    input.KeyConditions as Record<string, { AttributeValueList?: Item[string][] }> | undefined
  )?.[keyName];
  if (legacy) return keyText(legacy.AttributeValueList?.[0]);
  const expression = String(input.KeyConditionExpression ?? '');
  const equality = /(#?[\w.-]+)\s*=\s*(:\w+)|(:\w+)\s*=\s*(#?[\w.-]+)/g;
  for (const match of expression.matchAll(equality)) {
    const name = match[1] ?? match[4] ?? '';
    const placeholder = (match[2] ?? match[3]) as string;
    if ((name.startsWith('#') ? names[name] : name) === keyName) return keyText(values[placeholder]);
  }
  return undefined;
}

/** The call asking DynamoDB Local for its count of what it read (TOTAL, unless the caller asked for more). */
export function withReportedCapacity(input: Json): Json {
  return input.ReturnConsumedCapacity === 'TOTAL' || input.ReturnConsumedCapacity === 'INDEXES'
    ? input
    : { ...input, ReturnConsumedCapacity: 'TOTAL' };
}

export const reportedUnits = (body: Json) =>
  Number((body.ConsumedCapacity as Json | undefined)?.CapacityUnits ?? 0);

export const askedForCapacity = (input: Json) =>
  input.ReturnConsumedCapacity === 'TOTAL' || input.ReturnConsumedCapacity === 'INDEXES';

/**
 * The count DynamoDB Local puts last in its answer to a call that asked for TOTAL
 * (`…,"ConsumedCapacity":{"TableName":"t","CapacityUnits":1.5}}`, or the whole answer to a GetItem of nothing),
 * and where it starts: read from the answer's tail, so that a page of items need not be parsed and written
 * again to be relayed without it. No item can end an answer so: an attribute's value is a typed object.
 */
const TRAILING_CAPACITY = /,?"ConsumedCapacity":\{"TableName":"[\w.-]+","CapacityUnits":(\d+(?:\.\d+)?)\}\}$/;
export function trailingCapacity(raw: Buffer): { units: number; at: number } | undefined {
  const from = Math.max(0, raw.length - 512);
  const match = TRAILING_CAPACITY.exec(raw.subarray(from).toString('latin1'));
  return match ? { units: Number(match[1]), at: from + match.index } : undefined;
}

/** The answer as the caller asked for it: without the count it did not ask for (undefined: unchanged). */
export function shownCapacity(input: Json, body: Json): Json | undefined {
  if (askedForCapacity(input)) return undefined;
  if (!('ConsumedCapacity' in body)) return undefined;
  const { ConsumedCapacity: _, ...rest } = body;
  return rest;
}
