import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Requirements } from '../models/delivery-requirements';
import { PAGE_BYTE_BUDGET } from '../shared/limits';
import { accountingRecordFromItem } from './accounting';
import type { Claim } from './claims';
import { db, type Item, queryItems, tableName } from './client';
import { codec } from './codec';
import { getRecord } from './item-ops';
import {
  decodeNextTokenAmong,
  encodeNextToken,
  keyOfNextToken,
  type Page,
  type PageRequest,
  queryPrefix,
} from './pagination';
import {
  invoiceRowKey,
  isRowPartitionOf,
  placeRows,
  type RowShards,
  rowShardsOf,
  shardPartitions,
  shardPartitionsBetween,
} from './route-shards';
import { ROUTE_ROW_PREFIX, type RouteHeader, routeKeys, type TransactItem } from './routes';
import type { TableKey } from './table-schema';

/**
 * The rows of a route below its header: waypoints, invoices and items (see ./routes), the invoice and item
 * rows in the shards the header records (./route-shards).
 */

/** What locates a route's rows: its keys and its header's shards. */
export type RouteRowsRef = Pick<RouteHeader, 'accountId' | 'routeId' | 'rowShardStarts'>;

export interface WaypointRow {
  sequence: number;
  id: string;
  customerId?: string;
  name?: string;
  address?: string;
  location: { latitude: number; longitude: number };
  serviceTimeMinutes: number;
  timeWindows: { start: number; end: number }[];
  invoiceIds: string[];
  /** The waypoint's own delivery rules, as imported (models/delivery-requirements.ts); absent: the DC's. */
  requirements?: Requirements;
}

export interface ItemStatus {
  status: 'SUCCESSFUL' | 'FAILED';
  timestamp: number;
  reason?: { code: string; message: string };
}

export interface ItemRow {
  id: string;
  sku?: string;
  name?: string;
  quantity: number;
  displayUnitOfMeasure?: string;
  totalPriceCents: number;
  currency: string;
  /** What a scan's value is matched against; absent when the import gave none. */
  barcodes?: string[];
  status?: ItemStatus;
}

export interface InvoiceRow {
  id: string;
  waypointId: string;
  paymentMethod?: string;
  nameAttributes: { key: string; value: string }[];
  items: ItemRow[];
}

const waypointCodec = codec<WaypointRow>({
  sequence: {},
  id: { attr: 'waypoint_id' },
  customerId: {},
  name: {},
  address: {},
  location: {},
  serviceTimeMinutes: {},
  timeWindows: { absent: [] },
  invoiceIds: { absent: [] },
  requirements: {},
});

/** A waypoint row read from its item. */
export const waypointRowFromItem = waypointCodec.fromItem;

/** An invoice row holds the invoice but its items (rows of their own, each naming its invoice). */
const invoiceCodec = codec<Omit<InvoiceRow, 'items'>>({
  id: { attr: 'invoice_id' },
  waypointId: {},
  paymentMethod: {},
  nameAttributes: { attr: 'invoice_name_attributes', absent: [] },
});

/** An item row names its invoice and the invoice's waypoint: a page that starts inside an invoice reads them. */
const invoiceOfItemCodec = codec<{ invoiceId: string; waypointId: string }>({
  invoiceId: { attr: 'invoice_id' },
  waypointId: {},
});

/** `status` is written by delivery attempts, never by the import (which leaves it undefined). */
const itemCodec = codec<ItemRow>({
  id: { attr: 'item_id' },
  sku: {},
  name: {},
  quantity: {},
  displayUnitOfMeasure: {},
  totalPriceCents: {},
  currency: {},
  barcodes: {},
  status: {},
});

/**
 * The rows of a route (waypoints, invoices, items) as items to write, each waypoint's under its sequence,
 * in sort key order; `invoicesByWaypoint[i]` are the invoices of `waypoints[i]`. The invoice and item rows
 * go to the shards of `shards` (a new route's: all in the route's partition, for splitRouteRows to cut).
 */
export function routeRowItems(
  accountId: string,
  routeId: string,
  waypoints: readonly WaypointRow[],
  invoicesByWaypoint: readonly (readonly InvoiceRow[])[],
  shards: RowShards = { accountId, routeId, starts: [] },
): Item[] {
  const rows: Item[] = [];
  const partition = routeKeys.partition(accountId, routeId);
  waypoints.forEach((waypoint, position) => {
    const wp = waypoint.sequence;
    rows.push({
      ...routeKeys.waypoint(accountId, routeId, wp),
      entity: 'WAYPOINT',
      ...waypointCodec.toItem(waypoint),
    });
    (invoicesByWaypoint[position] ?? []).forEach(({ items, ...invoice }, inv) => {
      rows.push({
        pk: partition,
        sk: routeKeys.invoiceSk(wp, inv),
        entity: 'INVOICE',
        ...invoiceCodec.toItem(invoice),
      });
      items.forEach((item, index) => {
        rows.push({
          pk: partition,
          sk: routeKeys.itemSk(wp, inv, index),
          entity: 'ITEM',
          ...invoiceOfItemCodec.toItem({ invoiceId: invoice.id, waypointId: invoice.waypointId }),
          ...itemCodec.toItem(item),
        });
      });
    });
  });
  return placeRows(shards, rows);
}

/** Rows of one kind in the route partition, in key order: all of them, or one page. */
const queryRouteRows = (accountId: string, routeId: string, prefix: string, page?: PageRequest) =>
  queryPrefix(routeKeys.partition(accountId, routeId), prefix, page);

/**
 * The waypoint of the route that lists the invoice, or undefined when none does (an unknown invoice, or one of
 * a cancelled waypoint). Reads the waypoint rows only, which DynamoDB filters: not the invoice and item rows,
 * many more.
 */
export async function findWaypointRowOfInvoice(
  accountId: string,
  routeId: string,
  invoiceId: string,
): Promise<WaypointRow | undefined> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    FilterExpression: 'contains(invoice_ids, :invoice)',
    ExpressionAttributeValues: {
      ':pk': routeKeys.partition(accountId, routeId),
      ':prefix': ROUTE_ROW_PREFIX.waypoint,
      ':invoice': invoiceId,
    },
    ConsistentRead: true,
  });
  const [item] = items;
  return item && waypointCodec.fromItem(item);
}

/** The key a page of waypoints continues after: its last waypoint's (./waypoint-order.ts). */
export const waypointKeyOf = (accountId: string, routeId: string, waypoint: WaypointRow): TableKey =>
  routeKeys.waypoint(accountId, routeId, waypoint.sequence);

/**
 * The waypoints of a route in key order (sequence), not in the order they are visited: all of them, or one
 * page. Reads that show the route take them in its order (./waypoint-order.ts).
 */
export async function listWaypointRows(
  accountId: string,
  routeId: string,
  page?: PageRequest,
): Promise<Page<WaypointRow>> {
  const { items, nextToken } = await queryRouteRows(accountId, routeId, ROUTE_ROW_PREFIX.waypoint, page);
  return { items: items.map(waypointCodec.fromItem), nextToken };
}

/** One waypoint of a route, by its sequence; undefined when the route has no such row. */
export async function getWaypointRow(
  accountId: string,
  routeId: string,
  sequence: number,
): Promise<WaypointRow | undefined> {
  return getRecord(routeKeys.waypoint(accountId, routeId, sequence), waypointCodec.fromItem);
}

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
  queryItems(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': ROUTE_ROW_PREFIX.invoiceOrItem },
      ExclusiveStartKey: startKey,
      ConsistentRead: true,
    },
    limit,
    { stopAfterBytes: byteBudget },
  );

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

/**
 * Transaction item marking a waypoint visited, written with each attempt: a cancellation of the waypoint
 * (deleteUnvisitedWaypointItem) racing the attempt then fails instead of dropping the visit.
 */
export function markWaypointVisitedItem(accountId: string, routeId: string, sequence: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: routeKeys.waypoint(accountId, routeId, sequence),
      UpdateExpression: 'SET visited = :true',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':true': true },
    },
  };
}

/** Transaction item deleting a waypoint's row, on condition that no attempt marked it visited. */
export function deleteUnvisitedWaypointItem(
  accountId: string,
  routeId: string,
  sequence: number,
): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: routeKeys.waypoint(accountId, routeId, sequence),
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(visited)',
    },
  };
}

/** Transaction item deleting a row of a route (an invoice or item row of a cancelled waypoint). */
export const deleteRouteRowItem = (key: TableKey): TransactItem => ({
  Delete: { TableName: tableName(), Key: key },
});

/**
 * The rows of the route's partition but the header, and of its other shards (to delete a route or a failed
 * import's leftovers): all of them, or those among the first `limit` items of all its partitions together,
 * an equal part from each, so that deleting them spreads the write units over every shard.
 */
export async function listRouteRows(
  shards: RowShards,
  limit?: number,
): Promise<{ key: TableKey; claim?: Claim }[]> {
  const partitions = shardPartitions(shards);
  const perPartition = limit === undefined ? undefined : Math.ceil(limit / partitions.length);
  const read = partitions.map(async (partition) => {
    const { items } = await queryItems(
      {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ProjectionExpression: 'pk, sk, entity, waypoint_id, invoice_id, item_id, record_id',
        ConsistentRead: true,
      },
      perPartition,
    );
    return items;
  });
  return (await Promise.all(read))
    .flat()
    .filter((item) => item.sk !== 'ROUTE')
    .map((item) => ({ key: { pk: item.pk, sk: item.sk }, claim: claimOfRow(item) }));
}

/** The id each kind of route row holds a claim for, read through its entity's codec. */
const CLAIM_OF_ENTITY: Partial<Record<string, (item: Item) => Claim>> = {
  WAYPOINT: (item) => ({ kind: 'WAYPOINT', id: waypointCodec.fromItem(item).id }),
  INVOICE: (item) => ({ kind: 'INVOICE', id: invoiceCodec.fromItem(item).id }),
  ITEM: (item) => ({ kind: 'ITEM', id: itemCodec.fromItem(item).id }),
  ACCOUNTING_RECORD: (item) => ({ kind: 'ACCOUNTING_RECORD', id: accountingRecordFromItem(item).id }),
};

/** The id a route row holds a claim for. */
const claimOfRow = (item: Item): Claim | undefined => CLAIM_OF_ENTITY[item.entity]?.(item);
