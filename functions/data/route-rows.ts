import type { Requirements } from '../models/delivery-requirements';
import type { MaskedRecipient } from '../models/recipient';
import { accountingRecordFromItem } from './accounting';
import type { Claim } from './claims';
import { type Item, queryItems, tableName } from './client';
import { codec } from './codec';
import { getRecord } from './item-ops';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import { placeRows, type RowShards, shardPartitions } from './route-shards';
import { ROUTE_ROW_PREFIX, type RouteHeader, routeKeys, type TransactItem } from './routes';
import type { SealedSecret } from './secret-envelope';
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
  /** Who the stop's customer messages go to (functions/domain/recipients.ts); absent: nobody is told. */
  recipient?: StoredRecipient;
}

/** A waypoint's recipient as stored: sealed, with the masked form the reads answer. */
export interface StoredRecipient {
  sealed: SealedSecret;
  masked: MaskedRecipient;
  /** Keyed digest of the plain recipient: equal for an unchanged one (a revision compares it). */
  digest?: string;
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
  recipient: {},
});

/** A waypoint row read from its item. */
export const waypointRowFromItem = waypointCodec.fromItem;

/** An invoice row holds the invoice but its items (rows of their own, each naming its invoice). */
export const invoiceCodec = codec<Omit<InvoiceRow, 'items'>>({
  id: { attr: 'invoice_id' },
  waypointId: {},
  paymentMethod: {},
  nameAttributes: { attr: 'invoice_name_attributes', absent: [] },
});

/** An item row names its invoice and the invoice's waypoint: a page that starts inside an invoice reads them. */
export const invoiceOfItemCodec = codec<{ invoiceId: string; waypointId: string }>({
  invoiceId: { attr: 'invoice_id' },
  waypointId: {},
});

/** `status` is written by delivery attempts, never by the import (which leaves it undefined). */
export const itemCodec = codec<ItemRow>({
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
export const claimOfRow = (item: Item): Claim | undefined => CLAIM_OF_ENTITY[item.entity]?.(item);
