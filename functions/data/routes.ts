import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  ScanCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { PAGE_BYTE_BUDGET } from '../shared/limits';
import type { Claim } from './claims';
import {
  conditionFailedAt,
  db,
  type Item,
  isConditionFailure,
  isTransactionConflict,
  queryItems,
  tableName,
} from './client';
import {
  decodeIndexNextToken,
  decodeNextToken,
  encodeNextToken,
  type Page,
  type PageRequest,
} from './pagination';
import { TABLE_SCHEMA, type TableKey } from './table-schema';

/**
 * A route and everything imported with it live in one partition, so a route reads with one query and
 * in import order:
 *   ROUTE                          the header (state, assignment, version, waypoint ids)
 *   WP#<wp seq>                    waypoints in sequence
 *   I#<wp seq>#<inv seq>           invoices, each followed by its items
 *   I#<wp seq>#<inv seq>#<item seq>
 * Rows without a header (an import in progress, a route being deleted) are never shown: every read
 * starts at the header.
 */
const routePartition = (accountId: string, routeId: string) => `ROUTE#${accountId}/${routeId}`;
const seq = (n: number, width: number) => String(n).padStart(width, '0');

export const ROUTE_ROW_PREFIX = { waypoint: 'WP#', invoiceOrItem: 'I#' } as const;

export const routeKeys = {
  route: (accountId: string, routeId: string): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk: 'ROUTE',
  }),
  waypoint: (accountId: string, routeId: string, wp: number): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk: `${ROUTE_ROW_PREFIX.waypoint}${seq(wp, 5)}`,
  }),
  invoice: (accountId: string, routeId: string, wp: number, inv: number): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk: `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(wp, 5)}#${seq(inv, 4)}`,
  }),
  item: (accountId: string, routeId: string, wp: number, inv: number, item: number): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk: `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(wp, 5)}#${seq(inv, 4)}#${seq(item, 5)}`,
  }),
  /**
   * Sparse GSI1 entry carried by a route only while it is active (or started), not finalized and has a
   * driver, sorted by planned start: "active routes of a driver" is one query.
   */
  activeForDriver: (
    accountId: string,
    dcId: string,
    driverId: string,
    startTime: number,
    routeId: string,
  ) => ({
    gsi1pk: `ACTIVE_ROUTES#${accountId}/${dcId}/${driverId}`,
    gsi1sk: `${seq(startTime, 15)}#${routeId}`,
  }),
  /** GSI2 entry of every route: routes of a DC by local service date. */
  byDate: (accountId: string, dcId: string, localDate: string, startTime: number, routeId: string) => ({
    gsi2pk: `ROUTES_BY_DATE#${accountId}/${dcId}/${localDate}`,
    gsi2sk: `${seq(startTime, 15)}#${routeId}`,
  }),
};

export interface Warehouse {
  id: string;
  name?: string;
  address?: string;
  location: { latitude: number; longitude: number };
}

/** The route header: everything about a route but its waypoints, invoices and items. */
export interface RouteHeader {
  accountId: string;
  dcId: string;
  routeId: string;
  name: string;
  startTime: number;
  /** YYYY-MM-DD of startTime in the DC's zone. */
  localDate: string;
  assignedDriverId?: string;
  vehicleId?: string;
  startWarehouse?: Warehouse;
  endWarehouse?: Warehouse;
  waypointIds: string[];
  isActive: boolean;
  isFinalized: boolean;
  startedTimestamp?: number;
  finalizedTimestamp?: number;
  /** Bumped by every change; writes are conditional on the version they read. */
  version: number;
  /** The import that created the route; its id claims carry it. */
  importTxid: string;
  /** Set while the route is being deleted: reads treat it as gone. */
  deleting?: boolean;
  createdAt: number;
}

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
  status?: ItemStatus;
}

export interface InvoiceRow {
  id: string;
  waypointId: string;
  paymentMethod?: string;
  nameAttributes: { key: string; value: string }[];
  items: ItemRow[];
}

export function headerItem(route: RouteHeader): Item {
  const indexed = route.isActive && !route.isFinalized && route.assignedDriverId && !route.deleting;
  return {
    ...routeKeys.route(route.accountId, route.routeId),
    ...(indexed
      ? routeKeys.activeForDriver(
          route.accountId,
          route.dcId,
          route.assignedDriverId as string,
          route.startTime,
          route.routeId,
        )
      : {}),
    ...(route.deleting
      ? {}
      : routeKeys.byDate(route.accountId, route.dcId, route.localDate, route.startTime, route.routeId)),
    entity: 'ROUTE',
    account_id: route.accountId,
    dc_id: route.dcId,
    route_id: route.routeId,
    name: route.name,
    start_time: route.startTime,
    local_date: route.localDate,
    assigned_driver_id: route.assignedDriverId,
    vehicle_id: route.vehicleId,
    start_warehouse: route.startWarehouse,
    end_warehouse: route.endWarehouse,
    waypoint_ids: route.waypointIds,
    is_active: route.isActive,
    is_finalized: route.isFinalized,
    started_timestamp: route.startedTimestamp,
    finalized_timestamp: route.finalizedTimestamp,
    version: route.version,
    import_txid: route.importTxid,
    deleting: route.deleting,
    created_at: route.createdAt,
  };
}

export function headerFromItem(item: Item): RouteHeader {
  return {
    accountId: item.account_id,
    dcId: item.dc_id,
    routeId: item.route_id,
    name: item.name,
    startTime: item.start_time,
    localDate: item.local_date,
    assignedDriverId: item.assigned_driver_id,
    vehicleId: item.vehicle_id,
    startWarehouse: item.start_warehouse,
    endWarehouse: item.end_warehouse,
    waypointIds: item.waypoint_ids ?? [],
    isActive: item.is_active,
    isFinalized: item.is_finalized,
    startedTimestamp: item.started_timestamp,
    finalizedTimestamp: item.finalized_timestamp,
    version: item.version,
    importTxid: item.import_txid,
    deleting: item.deleting,
    createdAt: item.created_at,
  };
}

/** Transaction item creating the header; refuses to overwrite one (the import's last step). */
export function putNewHeaderItem(route: RouteHeader) {
  return {
    Put: { TableName: tableName(), Item: headerItem(route), ConditionExpression: 'attribute_not_exists(pk)' },
  };
}

/** The rows of a route (waypoints, invoices, items) as items to write. */
export function routeRowItems(
  accountId: string,
  routeId: string,
  waypoints: WaypointRow[],
  invoicesByWaypoint: InvoiceRow[][],
): Item[] {
  const rows: Item[] = [];
  waypoints.forEach((waypoint, wp) => {
    rows.push({
      ...routeKeys.waypoint(accountId, routeId, wp),
      entity: 'WAYPOINT',
      waypoint_id: waypoint.id,
      sequence: waypoint.sequence,
      customer_id: waypoint.customerId,
      name: waypoint.name,
      address: waypoint.address,
      location: waypoint.location,
      service_time_minutes: waypoint.serviceTimeMinutes,
      time_windows: waypoint.timeWindows,
      invoice_ids: waypoint.invoiceIds,
    });
    (invoicesByWaypoint[wp] ?? []).forEach((invoice, inv) => {
      rows.push({
        ...routeKeys.invoice(accountId, routeId, wp, inv),
        entity: 'INVOICE',
        invoice_id: invoice.id,
        waypoint_id: invoice.waypointId,
        payment_method: invoice.paymentMethod,
        invoice_name_attributes: invoice.nameAttributes,
      });
      invoice.items.forEach((item, index) => {
        rows.push({
          ...routeKeys.item(accountId, routeId, wp, inv, index),
          entity: 'ITEM',
          item_id: item.id,
          invoice_id: invoice.id,
          waypoint_id: invoice.waypointId,
          sku: item.sku,
          name: item.name,
          quantity: item.quantity,
          display_unit_of_measure: item.displayUnitOfMeasure,
          total_price_cents: item.totalPriceCents,
          currency: item.currency,
        });
      });
    });
  });
  return rows;
}

export async function getRouteHeader(accountId: string, routeId: string): Promise<RouteHeader | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: routeKeys.route(accountId, routeId),
      ConsistentRead: true,
    }),
  );
  return Item ? headerFromItem(Item) : undefined;
}

/** One item of a TransactWriteItems request (a Put, Update, Delete or ConditionCheck). */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Replaces the header with `next` (whose version the caller has bumped) unless someone changed it since
 * `expectedVersion` was read; returns false on such a lost race. `alsoWrite` (events, the driver's
 * started routes) commits in the same transaction, or not at all.
 */
export async function replaceRouteHeader(
  next: RouteHeader,
  expectedVersion: number,
  alsoWrite: TransactItem[] = [],
): Promise<boolean> {
  const { Put: put } = replaceHeaderItem(next, expectedVersion);
  try {
    if (alsoWrite.length === 0) await db.send(new PutCommand(put));
    else await db.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, ...alsoWrite] }));
    return true;
  } catch (error) {
    // A transaction cancelled for another one changing the same items lost a race as well.
    if (conditionFailedAt(error, 0) || isTransactionConflict(error)) return false;
    throw error;
  }
}

/** Transaction item replacing the header with `next` on condition that its version is still `expectedVersion`. */
export function replaceHeaderItem(next: RouteHeader, expectedVersion: number) {
  return {
    Put: {
      TableName: tableName(),
      Item: headerItem(next),
      ConditionExpression: 'version = :expected',
      ExpressionAttributeValues: { ':expected': expectedVersion },
    },
  };
}

/** A header condition (version) for a write that changes other rows of the route in the same transaction. */
export function routeUnchangedCheck(route: RouteHeader): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: routeKeys.route(route.accountId, route.routeId),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': route.version },
    },
  };
}

/** Deletes the header of a route marked `deleting` (the last step of a deletion); idempotent. */
export async function deleteRouteHeader(accountId: string, routeId: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: routeKeys.route(accountId, routeId),
        ConditionExpression: 'deleting = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Rows of one kind in the route partition, in key order: all of them, or one page. */
async function queryRouteRows(accountId: string, routeId: string, prefix: string, page?: PageRequest) {
  const partition = routePartition(accountId, routeId);
  const { items, lastKey } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
      ExclusiveStartKey: decodeNextToken(page?.nextToken, partition, prefix),
      ConsistentRead: true,
    },
    page?.limit,
    { stopAfterBytes: page && PAGE_BYTE_BUDGET },
  );
  return { items, nextToken: encodeNextToken(lastKey) };
}

/** The key a page of waypoints continues after (a waypoint's sequence is its position in the route). */
export const waypointKeyOf = (accountId: string, routeId: string, waypoint: WaypointRow): TableKey =>
  routeKeys.waypoint(accountId, routeId, waypoint.sequence);

/** The waypoints of a route in sequence: all of them, or one page. */
export async function listWaypointRows(
  accountId: string,
  routeId: string,
  page?: PageRequest,
): Promise<Page<WaypointRow>> {
  const { items, nextToken } = await queryRouteRows(accountId, routeId, ROUTE_ROW_PREFIX.waypoint, page);
  return {
    items: items.map((item) => ({
      sequence: item.sequence,
      id: item.waypoint_id,
      customerId: item.customer_id,
      name: item.name,
      address: item.address,
      location: item.location,
      serviceTimeMinutes: item.service_time_minutes,
      timeWindows: item.time_windows ?? [],
      invoiceIds: item.invoice_ids ?? [],
    })),
    nextToken,
  };
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

/**
 * Invoices with their items, in import order, from the `I#` rows: all of them, or a page of `limit` rows
 * (invoices and items alike). A page that starts inside an invoice repeats that invoice (its header is
 * read by key) with the items that follow.
 */
export async function listInvoiceRows(
  accountId: string,
  routeId: string,
  page?: PageRequest,
): Promise<InvoiceRowsPage> {
  const { items, nextToken } = await queryRouteRows(accountId, routeId, ROUTE_ROW_PREFIX.invoiceOrItem, page);
  const rowKeys = items.map((item): TableKey => ({ pk: item.pk, sk: item.sk }));
  const first = items[0];
  const last = items.at(-1);
  const continuesInvoice = first?.entity === 'ITEM';
  if (continuesInvoice) {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName(), Key: invoiceKeyOfItem(first), ConsistentRead: true }),
    );
    // The header is gone only when the route is being deleted: its items then show under their invoice id.
    items.unshift(
      Item ?? { entity: 'INVOICE', invoice_id: first.invoice_id, waypoint_id: first.waypoint_id },
    );
  }
  return {
    items: invoicesOfRows(items),
    nextToken,
    rowKeys,
    continuesInvoice,
    waypoints:
      first && last ? { first: waypointSequenceOfRow(first), last: waypointSequenceOfRow(last) } : undefined,
  };
}

/** The sequence of the waypoint an `I#<wp seq>#…` row belongs to. */
const waypointSequenceOfRow = (item: Item) =>
  Number(item.sk.slice(ROUTE_ROW_PREFIX.invoiceOrItem.length).split('#', 1)[0]);

/** Invoice rows each followed by its item rows, as invoices holding their items. */
function invoicesOfRows(rows: Item[]): InvoiceRow[] {
  const invoices: InvoiceRow[] = [];
  for (const item of rows) {
    if (item.entity === 'INVOICE') {
      invoices.push({
        id: item.invoice_id,
        waypointId: item.waypoint_id,
        paymentMethod: item.payment_method,
        nameAttributes: item.invoice_name_attributes ?? [],
        items: [],
      });
    } else {
      invoices.at(-1)?.items.push({
        id: item.item_id,
        sku: item.sku,
        name: item.name,
        quantity: item.quantity,
        displayUnitOfMeasure: item.display_unit_of_measure,
        totalPriceCents: item.total_price_cents,
        currency: item.currency,
        status: item.status,
      });
    }
  }
  return invoices;
}

/** The invoices of the waypoints in sequence `first`..`last`, with their items, in import order. */
export async function listInvoiceRowsOfWaypoints(
  accountId: string,
  routeId: string,
  first: number,
  last: number,
): Promise<InvoiceRow[]> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': routePartition(accountId, routeId),
      ':from': `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(first, 5)}#`,
      // Sorts after every row of waypoint `last` and before those of the next one.
      ':to': `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(last + 1, 5)}`,
    },
    ConsistentRead: true,
  });
  return invoicesOfRows(items);
}

/** An item row's sk is its invoice's sk followed by `#<item seq>`. */
function invoiceKeyOfItem(item: Item): TableKey {
  return { pk: item.pk, sk: item.sk.slice(0, item.sk.lastIndexOf('#')) };
}

/** The ids of the items of one waypoint (by its sequence). */
export async function listWaypointItemIds(
  accountId: string,
  routeId: string,
  sequence: number,
): Promise<string[]> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': routePartition(accountId, routeId),
      ':prefix': `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(sequence, 5)}#`,
    },
    ProjectionExpression: 'entity, item_id',
    ConsistentRead: true,
  });
  return items.filter((item) => item.entity === 'ITEM').map((item) => item.item_id);
}

/**
 * The rows of the route partition but the header (to delete a route or a failed import's leftovers): all of
 * them, or those among the first `limit` items of the partition.
 */
export async function listRouteRows(
  accountId: string,
  routeId: string,
  limit?: number,
): Promise<{ key: TableKey; claim?: Claim }[]> {
  const { items } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': routePartition(accountId, routeId) },
      ProjectionExpression: 'pk, sk, entity, waypoint_id, invoice_id, item_id, record_id',
      ConsistentRead: true,
    },
    limit,
  );
  return items
    .filter((item) => item.sk !== 'ROUTE')
    .map((item) => ({ key: { pk: item.pk, sk: item.sk }, claim: claimOfRow(item) }));
}

/** The id a route row holds a claim for. */
function claimOfRow(item: Item): Claim | undefined {
  if (item.entity === 'WAYPOINT') return { kind: 'WAYPOINT', id: item.waypoint_id };
  if (item.entity === 'INVOICE') return { kind: 'INVOICE', id: item.invoice_id };
  if (item.entity === 'ITEM') return { kind: 'ITEM', id: item.item_id };
  if (item.entity === 'ACCOUNTING_RECORD') return { kind: 'ACCOUNTING_RECORD', id: item.record_id };
  return undefined;
}

export interface ActiveRoute {
  routeId: string;
  startTime: number;
}

export async function listActiveRoutesOfDriver(
  accountId: string,
  dcId: string,
  driverId: string,
  options: { limit?: number } = {},
): Promise<ActiveRoute[]> {
  const { gsi1pk } = routeKeys.activeForDriver(accountId, dcId, driverId, 0, '');
  const { items } = await queryItems(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: `${TABLE_SCHEMA.indexes.gsi1.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': gsi1pk },
    },
    options.limit,
  );
  return items.map((item) => ({ routeId: item.route_id, startTime: item.start_time }));
}

/** Routes of a DC-local date by planned start: all of them, or one page. */
export async function listRoutesOfDate(
  accountId: string,
  dcId: string,
  localDate: string,
  page?: PageRequest,
): Promise<Page<RouteHeader>> {
  const index = TABLE_SCHEMA.indexes.gsi2;
  const { gsi2pk } = routeKeys.byDate(accountId, dcId, localDate, 0, '');
  const { items, lastKey } = await queryItems(
    {
      IndexName: 'gsi2',
      KeyConditionExpression: `${index.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': gsi2pk },
      ExclusiveStartKey: decodeIndexNextToken(page?.nextToken, index, gsi2pk),
    },
    page?.limit,
    { stopAfterBytes: page && PAGE_BYTE_BUDGET },
  );
  return { items: items.map(headerFromItem), nextToken: encodeNextToken(lastKey) };
}

/** The key a page of routes of a date continues after (its index key and table key, as the index gives it). */
export const routeOfDateKeyOf = (route: RouteHeader) => ({
  ...routeKeys.route(route.accountId, route.routeId),
  ...routeKeys.byDate(route.accountId, route.dcId, route.localDate, route.startTime, route.routeId),
});

/**
 * Every route header that names a driver and is neither finished nor being deleted, a scan page at a time
 * (the operator's one-off backfill of drivers' route sets; no request path scans).
 */
export async function* scanAssignedUnfinishedRoutes(): AsyncGenerator<RouteHeader[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression:
          'entity = :route AND attribute_exists(assigned_driver_id) AND is_finalized = :false AND attribute_not_exists(deleting)',
        ExpressionAttributeValues: { ':route': 'ROUTE', ':false': false },
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    yield (page.Items ?? []).map(headerFromItem);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
