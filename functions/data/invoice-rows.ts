import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { PAGE_BYTE_BUDGET } from '../shared/limits';
import type { Claim } from './claims';
import { db, type Item, queryItems, queryPrefixItems, tableName } from './client';
import {
  decodeNextTokenAmong,
  encodeNextToken,
  keyOfNextToken,
  type Page,
  type PageRequest,
} from './pagination';
import {
  claimOfRow,
  type InvoiceRow,
  invoiceCodec,
  invoiceOfItemCodec,
  itemCodec,
  type RouteRowsRef,
} from './route-rows';
import {
  invoiceRowKey,
  isRowPartitionOf,
  type RowShards,
  rowShardsOf,
  shardPartitions,
  shardPartitionsBetween,
} from './route-shards';
import { ROUTE_ROW_PREFIX, routeKeys } from './routes';
import type { TableKey } from './table-schema';

/**
 * The invoice and item rows of a route (`I#` rows, see ./route-rows), read: a page of them in import order
 * across the route's shards, the rows of some waypoints, and what a page's other reads need.
 */

/** A page of invoices, and what a caller needs to cut it shorter or read what its rows refer to. */
export interface InvoiceRowsPage extends Page<InvoiceRow> {
  /** The key of each row read, in order: an invoice's, then each of its items'. */
  rowKeys: TableKey[];
  /** True when the page starts inside an invoice: the first invoice repeats a header read on an earlier page. */
  continuesInvoice: boolean;
  /** The sequences of the first and last waypoints the rows belong to (none on an empty page). */
  waypoints?: { first: number; last: number };
}

/** A page of `I#` rows as read, before the header of an invoice it starts inside of is added. */
export interface InvoiceRowsRead {
  rows: Item[];
  nextToken?: string;
  shards: RowShards;
  /** The sequences of the first and last waypoints the rows belong to (none on an empty page). */
  waypoints?: { first: number; last: number };
}

/**
 * The `I#` rows of the route, all of them or a page of `limit` rows (invoices and items alike), in import
 * order: what the page's other reads (the header of an invoice it starts inside of, the attempts of its
 * waypoints) need, so that a caller can make them at once.
 */
async function readInvoiceRows(
  route: RouteRowsRef,
  page?: PageRequest,
  early?: EarlyShardRead,
): Promise<InvoiceRowsRead> {
  const shards = rowShardsOf(route);
  const { items: rows, nextToken } = await queryInvoiceRowPage(shards, page, early);
  const first = rows[0];
  const last = rows.at(-1);
  return {
    rows,
    nextToken,
    shards,
    waypoints:
      first && last ? { first: waypointSequenceOfRow(first), last: waypointSequenceOfRow(last) } : undefined,
  };
}

/**
 * readInvoiceRows for a page of a route whose header is still being read: the shard the page starts in (the
 * route's partition, or the shard its token names when that is one of the route's) is queried at once,
 * alongside the header, and the rest once the header is known. The rows count only then: a route that turns
 * out not to be the caller's shows none of them, and a token the header's shards do not hold is refused as before.
 */
export async function readInvoiceRowsAlongside(
  ids: Pick<RouteRowsRef, 'accountId' | 'routeId'>,
  header: Promise<RouteRowsRef>,
  page: PageRequest,
): Promise<InvoiceRowsRead> {
  const start =
    page.nextToken === undefined
      ? { pk: routeKeys.partition(ids.accountId, ids.routeId), sk: undefined }
      : keyOfNextToken(page.nextToken, ROUTE_ROW_PREFIX.invoiceOrItem);
  const early =
    start && isRowPartitionOf(ids.accountId, ids.routeId, start.pk)
      ? {
          partition: start.pk,
          read: queryShardRows(
            start.pk,
            start.sk === undefined ? undefined : start,
            page.limit,
            PAGE_BYTE_BUDGET,
          ),
        }
      : undefined;
  // Its failure is the page's once the header is known (and a header that fails answers first).
  early?.read.catch(() => undefined);
  return readInvoiceRows(await header, page, early);
}

/**
 * Invoices with their items from rows readInvoiceRows read. A page that starts inside an invoice repeats that
 * invoice (its header is read by key) with the items that follow.
 */
export async function invoicesOfRead({
  rows,
  nextToken,
  shards,
  waypoints,
}: InvoiceRowsRead): Promise<InvoiceRowsPage> {
  const rowKeys = rows.map((item): TableKey => ({ pk: item.pk, sk: item.sk }));
  const first = rows[0];
  const continuesInvoice = first?.entity === 'ITEM';
  const items = [...rows];
  if (first && continuesInvoice) {
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: invoiceRowKey(shards, invoiceSkOfItem(first)),
        ConsistentRead: true,
      }),
    );
    // The header is gone only when the route is being deleted: its items then show under their invoice id.
    const { invoiceId, waypointId } = invoiceOfItemCodec.fromItem(first);
    items.unshift(
      Item ?? {
        entity: 'INVOICE',
        ...invoiceCodec.toItem({ id: invoiceId, waypointId, nameAttributes: [] }),
      },
    );
  }
  return { items: invoicesOfRows(items), nextToken, rowKeys, continuesInvoice, waypoints };
}

/** Invoices with their items, in import order, from the `I#` rows: all of them, or a page (readInvoiceRows). */
export const listInvoiceRows = async (route: RouteRowsRef, page?: PageRequest): Promise<InvoiceRowsPage> =>
  invoicesOfRead(await readInvoiceRows(route, page));

/** A query of the shard a page starts in, sent before the route's header was read (readInvoiceRowsAlongside). */
interface EarlyShardRead {
  partition: string;
  read: ReturnType<typeof queryShardRows>;
}

/** One shard's `I#` rows after `startKey`: at most `limit`, fewer once they reach `byteBudget`. */
const queryShardRows = (pk: string, startKey?: TableKey, limit?: number, byteBudget?: number) =>
  queryPrefixItems(pk, ROUTE_ROW_PREFIX.invoiceOrItem, { startKey, limit, stopAfterBytes: byteBudget });

/**
 * The `I#` rows of the route's shards in order, as one list: all of them, or a page (at most `limit` rows,
 * fewer once they reach PAGE_BYTE_BUDGET) after the row its token names, which names the shard it continues
 * in. A page that ends where a shard does continues after its last row: the next finds that shard done.
 * `early` is the page's first query when it was sent already.
 */
async function queryInvoiceRowPage(
  shards: RowShards,
  page?: PageRequest,
  early?: EarlyShardRead,
): Promise<Page<Item>> {
  const partitions = shardPartitions(shards);
  let startKey = decodeNextTokenAmong(page?.nextToken, partitions, ROUTE_ROW_PREFIX.invoiceOrItem);
  const items: Item[] = [];
  let bytesRead = 0;
  const firstShard = startKey ? partitions.indexOf(startKey.pk) : 0;
  for (let shard = firstShard; shard < partitions.length; shard++) {
    const partition = partitions[shard] as string;
    const read = await (shard === firstShard && early?.partition === partition
      ? early.read
      : queryShardRows(
          partition,
          startKey,
          page && page.limit - items.length,
          page && PAGE_BYTE_BUDGET - bytesRead,
        ));
    items.push(...read.items);
    bytesRead += read.bytesRead;
    startKey = undefined;
    if (read.lastKey) return { items, nextToken: encodeNextToken(read.lastKey) };
    const pageFull = page && (items.length >= page.limit || bytesRead >= PAGE_BYTE_BUDGET);
    const last = items.at(-1);
    if (pageFull && last && shard < partitions.length - 1)
      return { items, nextToken: encodeNextToken({ pk: last.pk, sk: last.sk }) };
  }
  return { items };
}

/** The sequence of the waypoint an `I#<wp seq>#…` row belongs to. */
const waypointSequenceOfRow = (item: Item) =>
  Number(item.sk.slice(ROUTE_ROW_PREFIX.invoiceOrItem.length).split('#', 1)[0]);

/** Invoice rows each followed by its item rows, as invoices holding their items. */
function invoicesOfRows(rows: Item[]): InvoiceRow[] {
  const invoices: InvoiceRow[] = [];
  for (const row of rows) {
    if (row.entity === 'INVOICE') invoices.push({ ...invoiceCodec.fromItem(row), items: [] });
    else invoices.at(-1)?.items.push(itemCodec.fromItem(row));
  }
  return invoices;
}

/**
 * The `I#` rows of waypoints with sequences `first`..`last`, in key order: each shard whose range meets
 * theirs is queried (at once), and their rows joined in shard order.
 */
async function queryInvoiceRowsOfWaypoints(
  route: RouteRowsRef,
  waypoints: { first: number; last: number },
  projection?: string,
): Promise<Item[]> {
  const from = routeKeys.invoiceRowsOf(waypoints.first);
  // Sorts after every row of waypoint `last` and before those of the next one.
  const to = routeKeys.invoiceRowsOf(waypoints.last + 1);
  const shards = shardPartitionsBetween(rowShardsOf(route), from, to).map(async (partition) => {
    const { items } = await queryItems({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': partition, ':from': from, ':to': to },
      ProjectionExpression: projection,
      ConsistentRead: true,
    });
    return items;
  });
  return (await Promise.all(shards)).flat();
}

/** The invoices of the waypoints in sequence `first`..`last`, with their items, in import order. */
export async function listInvoiceRowsOfWaypoints(
  route: RouteRowsRef,
  first: number,
  last: number,
): Promise<InvoiceRow[]> {
  return invoicesOfRows(await queryInvoiceRowsOfWaypoints(route, { first, last }));
}

/** An item row's sk is its invoice's sk followed by `#<item seq>`. */
const invoiceSkOfItem = (item: Item): string => item.sk.slice(0, item.sk.lastIndexOf('#'));

/** The items of one waypoint (by its sequence): their ids and barcodes (none when the import gave none). */
export async function listWaypointItems(
  route: RouteRowsRef,
  sequence: number,
): Promise<{ id: string; barcodes: string[] }[]> {
  const rows = await queryInvoiceRowsOfWaypoints(
    route,
    { first: sequence, last: sequence },
    'entity, item_id, barcodes',
  );
  return rows
    .filter((row) => row.entity === 'ITEM')
    .map((row) => {
      const item = itemCodec.fromItem(row);
      return { id: item.id, barcodes: item.barcodes ?? [] };
    });
}

/** The invoice and item rows of one waypoint (by its sequence), each with the id it holds a claim for. */
export async function listWaypointInvoiceRows(
  route: RouteRowsRef,
  sequence: number,
): Promise<{ key: TableKey; claim: Claim }[]> {
  const rows = await queryInvoiceRowsOfWaypoints(
    route,
    { first: sequence, last: sequence },
    'pk, sk, entity, invoice_id, item_id',
  );
  return rows.map((row) => ({ key: { pk: row.pk, sk: row.sk }, claim: claimOfRow(row) as Claim }));
}
