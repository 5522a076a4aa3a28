import type { Item } from './client';
import { ROUTE_ROW_PREFIX, type RouteHeader, routeKeys } from './routes';
import type { TableKey } from './table-schema';

/**
 * Where a route's invoice and item rows (`I#…`, the bulk of a big route) live: the one source of their
 * partition keys. DynamoDB takes at most 1,000 write units a second on one partition key, so a route whose
 * rows all shared its partition would take at least its rows' write units / 1,000 seconds to import, and as
 * long to delete (a 50,000-item route: about 56 s). The `I#` rows are therefore cut, in sort key order, into
 * shards of at most ROW_SHARD_WRITE_UNITS: shard 0 is the route's partition, which counts its waypoint rows
 * and the import's other rows there first; shard n >= 1 is `routeKeys.rowShard(account, route, n)`. The cut
 * is a pure function of the rows (splitRouteRows), so an import, a retry of it and the cleanup of a failed
 * one place every row alike; the header records where each shard after the first starts
 * (`rowShardStarts`), and every read of `I#` rows queries the shards its range meets, in order.
 */

/**
 * Most write units of the rows of one shard: its partition's floor on AWS is this over 1,000 units a second
 * (8 s), whatever the route's size. Smaller shards cost reads more queries (a page crosses more of them).
 */
export const ROW_SHARD_WRITE_UNITS = 8000;

/** The shards of one route's `I#` rows. */
export interface RowShards {
  accountId: string;
  routeId: string;
  /** The sort key each shard after the first starts at, increasing. */
  starts: readonly string[];
}

/** The shards the header records (one, the route's partition, when it records none). */
export const rowShardsOf = (
  route: Pick<RouteHeader, 'accountId' | 'routeId' | 'rowShardStarts'>,
): RowShards => ({ accountId: route.accountId, routeId: route.routeId, starts: route.rowShardStarts ?? [] });

/** The partition key of shard `shard`. */
export const shardPartition = (shards: RowShards, shard: number): string =>
  shard === 0
    ? routeKeys.partition(shards.accountId, shards.routeId)
    : routeKeys.rowShard(shards.accountId, shards.routeId, shard);

/**
 * Whether `pk` is the route's partition or has the form of one of its shards', whatever the header records:
 * what a read started before the header is known may query (the shard number comes last, so no other route's
 * key has this form).
 */
export function isRowPartitionOf(accountId: string, routeId: string, pk: string): boolean {
  if (pk === routeKeys.partition(accountId, routeId)) return true;
  const shardPrefix = routeKeys.rowShard(accountId, routeId, 1).slice(0, -1);
  return pk.startsWith(shardPrefix) && /^[1-9][0-9]{0,5}$/.test(pk.slice(shardPrefix.length));
}

/** Every shard's partition key, in sort key order. */
export const shardPartitions = (shards: RowShards): string[] =>
  Array.from({ length: shards.starts.length + 1 }, (_, shard) => shardPartition(shards, shard));

/** The shard whose range holds sort key `sk`: the last one starting at or before it. */
function shardOf(shards: RowShards, sk: string): number {
  let shard = 0;
  while (shard < shards.starts.length && (shards.starts[shard] as string) <= sk) shard++;
  return shard;
}

/** The key of the `I#` row with sort key `sk`. */
export const invoiceRowKey = (shards: RowShards, sk: string): TableKey => ({
  pk: shardPartition(shards, shardOf(shards, sk)),
  sk,
});

/** The partition keys of the shards whose ranges meet the sort keys `from`..`to`, in order. */
export function shardPartitionsBetween(shards: RowShards, from: string, to: string): string[] {
  const first = shardOf(shards, from);
  const last = shardOf(shards, to);
  return Array.from({ length: last - first + 1 }, (_, offset) => shardPartition(shards, first + offset));
}

const isInvoiceRow = (row: Item) => (row.sk as string).startsWith(ROUTE_ROW_PREFIX.invoiceOrItem);

/**
 * Write units of putting `row`, from its JSON size, which is never less than DynamoDB's size of the same item
 * (names and strings are quoted, attributes separated; a number's digits take at least DynamoDB's bytes for
 * it): the budget may count a row a little heavier than AWS does, never lighter.
 */
const writeUnitsOf = (row: Item) => Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(row)) / 1024));

/**
 * The rows of a new route (as built in the route's partition, waypoints, invoices and items in sort key
 * order) placed in their shards, and the shards: the route's partition takes its other rows' units first,
 * then `I#` rows until the next would pass ROW_SHARD_WRITE_UNITS; each next shard starts at that row.
 */
export function splitRouteRows(
  accountId: string,
  routeId: string,
  rows: readonly Item[],
): { rows: Item[]; shards: RowShards } {
  const routePartition = routeKeys.partition(accountId, routeId);
  const starts: string[] = [];
  let units = rows
    .filter((row) => row.pk === routePartition && !isInvoiceRow(row))
    .reduce((total, row) => total + writeUnitsOf(row), 0);
  for (const row of rows) {
    if (row.pk !== routePartition || !isInvoiceRow(row)) continue;
    const rowUnits = writeUnitsOf(row);
    if (units + rowUnits > ROW_SHARD_WRITE_UNITS && units > 0) {
      starts.push(row.sk);
      units = 0;
    }
    units += rowUnits;
  }
  const shards: RowShards = { accountId, routeId, starts };
  return { rows: placeRows(shards, rows), shards };
}

/** The `I#` rows among `rows` (built in the route's partition) moved to the shards their sort keys fall in. */
export function placeRows(shards: RowShards, rows: readonly Item[]): Item[] {
  if (shards.starts.length === 0) return [...rows];
  const routePartition = routeKeys.partition(shards.accountId, shards.routeId);
  return rows.map((row) =>
    row.pk === routePartition && isInvoiceRow(row) ? { ...row, ...invoiceRowKey(shards, row.sk) } : row,
  );
}

/**
 * The items in an order that takes turns between their partition keys (each key's items in their own
 * order): written in that order, a route's rows load all of its shards at once, never one key at a time.
 */
export function interleavedByPartition(items: readonly Item[]): Item[] {
  const byPartition = new Map<string, Item[]>();
  for (const item of items) {
    const group = byPartition.get(item.pk);
    if (group) group.push(item);
    else byPartition.set(item.pk, [item]);
  }
  const groups = [...byPartition.values()];
  const interleaved: Item[] = [];
  for (let index = 0; interleaved.length < items.length; index++)
    for (const group of groups) if (index < group.length) interleaved.push(group[index] as Item);
  return interleaved;
}
