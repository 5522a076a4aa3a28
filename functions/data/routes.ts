import {
  DeleteCommand,
  PutCommand,
  ScanCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Applied } from '../models/delivery-requirements';
import { PAGE_BYTE_BUDGET } from '../shared/limits';
import { db, type Item, queryItems, tableName } from './client';
import { codec } from './codec';
import { conditionHeld, getRecord } from './item-ops';
import { decodeIndexNextToken, encodeNextToken, type Page, type PageRequest } from './pagination';
import { TABLE_SCHEMA, type TableKey } from './table-schema';

/**
 * A route and everything imported with it live in its partition, keyed by each waypoint's sequence (which it
 * keeps for life; the order the waypoints are visited in is the header's list, ./waypoint-order.ts):
 *   ROUTE                          the header (state, assignment, version, waypoint ids in visiting order)
 *   WP#<wp seq>                    waypoints by sequence
 *   I#<wp seq>#<inv seq>           invoices, each followed by its items
 *   I#<wp seq>#<inv seq>#<item seq>
 * but for a big route's `I#` rows: cut in sort key order into shards of bounded write units, whose first
 * stays in the route's partition and each next one has a partition of its own,
 * `ROUTE_ROWS#<account>/<route>#<shard>` (the header lists where they start; ./route-shards.ts says why).
 * Rows without a header (an import in progress, a route being deleted) are never shown: every read
 * starts at the header.
 */
const routePartition = (accountId: string, routeId: string) => `ROUTE#${accountId}/${routeId}`;
/** The shard number last: no route id (which may hold `#` and digits) makes one key of two shards. */
const rowShardPartition = (accountId: string, routeId: string, shard: number) =>
  `ROUTE_ROWS#${accountId}/${routeId}#${shard}`;
const seq = (n: number, width: number) => String(n).padStart(width, '0');

export const ROUTE_ROW_PREFIX = { waypoint: 'WP#', invoiceOrItem: 'I#' } as const;

export const routeKeys = {
  partition: routePartition,
  route: (accountId: string, routeId: string): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk: 'ROUTE',
  }),
  waypoint: (accountId: string, routeId: string, wp: number): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk: `${ROUTE_ROW_PREFIX.waypoint}${seq(wp, 5)}`,
  }),
  /** The partition of shard `shard` >= 1 of the route's `I#` rows (shard 0 is the route's partition). */
  rowShard: rowShardPartition,
  /** The sort keys of invoice and item rows; their partition is their shard's (./route-shards.ts). */
  invoiceSk: (wp: number, inv: number) => `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(wp, 5)}#${seq(inv, 4)}`,
  itemSk: (wp: number, inv: number, item: number) =>
    `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(wp, 5)}#${seq(inv, 4)}#${seq(item, 5)}`,
  /** A row of the route's partition under sort key `sk` (its attempts and accounting records). */
  row: (accountId: string, routeId: string, sk: string): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk,
  }),
  /** The start of the sk of every invoice and item row of waypoint `wp`. */
  invoiceRowsOf: (wp: number) => `${ROUTE_ROW_PREFIX.invoiceOrItem}${seq(wp, 5)}#`,
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
  /** The route's waypoints in the order they are visited (./waypoint-order.ts). */
  waypointIds: string[];
  /**
   * The sequence (row key) of each waypoint of `waypointIds`, in the same order; absent while they are 0, 1,
   * 2, ... (no waypoint was cancelled, added or moved). A waypoint keeps its sequence for life: a cancelled
   * one's stays unused, and a reorder only changes this list, so no row moves.
   */
  waypointSequences?: number[];
  /**
   * The sequence the next waypoint added by a revision takes; absent until a waypoint was cancelled or added
   * (then it is the one after the last). Sequences are never reused: a removed waypoint's proofs and ETAs
   * stay under its own.
   */
  nextWaypointSequence?: number;
  /**
   * The sort key each shard of the route's `I#` rows after the first starts at, increasing
   * (./route-shards.ts); absent when they all are in the route's partition (every small route, and every
   * route imported before shards).
   */
  rowShardStarts?: string[];
  /**
   * Set while a revision (its txid) is being applied: every change of the route is refused (3102) until the
   * revision is in or rolled back.
   */
  revisionTxid?: string;
  isActive: boolean;
  isFinalized: boolean;
  startedTimestamp?: number;
  finalizedTimestamp?: number;
  /** Bumped by every change; writes are conditional on the version they read. */
  version: number;
  /** The import that created the route; its id claims carry it. */
  importTxid: string;
  /**
   * Derives the tracking token of each waypoint (models/tracking-links.ts); absent on routes imported before
   * tracking links, whose waypoints have none.
   */
  trackingKey?: string;
  /**
   * The first sequence a revision gave a waypoint it added: the tracking tokens of waypoints from it on derive
   * from their sequence too (models/tracking-links.ts, tokenSequence), so an id removed and added again gets
   * a new link. Absent until a revision adds a waypoint.
   */
  sequencedTokensFrom?: number;
  /**
   * Its DC's default delivery rules as the route's import (or latest revision) took them; absent when the DC
   * had none. A waypoint's own rules win over them (models/delivery-requirements.ts).
   */
  defaultRequirements?: Applied;
  /** Set while the route is being deleted: reads treat it as gone. */
  deleting?: boolean;
  createdAt: number;
}

/** The header's fields as stored; its keys (and the index keys it carries) come from `routeKeys`. */
const headerCodec = codec<RouteHeader>({
  accountId: {},
  dcId: {},
  routeId: {},
  name: {},
  startTime: {},
  localDate: {},
  assignedDriverId: {},
  vehicleId: {},
  startWarehouse: {},
  endWarehouse: {},
  waypointIds: { absent: [] },
  waypointSequences: {},
  nextWaypointSequence: {},
  rowShardStarts: {},
  revisionTxid: {},
  isActive: {},
  isFinalized: {},
  startedTimestamp: {},
  finalizedTimestamp: {},
  version: {},
  importTxid: {},
  trackingKey: {},
  sequencedTokensFrom: {},
  defaultRequirements: {},
  deleting: {},
  createdAt: {},
});

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
    ...headerCodec.toItem(route),
  };
}

export const headerFromItem = headerCodec.fromItem;

/** The sequence (row key) of a waypoint of the route; undefined when the route has no such waypoint. */
export function waypointSequenceOf(route: RouteHeader, waypointId: string): number | undefined {
  const position = route.waypointIds.indexOf(waypointId);
  if (position < 0) return undefined;
  return route.waypointSequences ? route.waypointSequences[position] : position;
}

/** The sequence of the waypoint row under `key` (routeKeys.waypoint); undefined for a key of another row. */
export function waypointSequenceOfKey(key: TableKey): number | undefined {
  if (!key.sk.startsWith(ROUTE_ROW_PREFIX.waypoint)) return undefined;
  return Number(key.sk.slice(ROUTE_ROW_PREFIX.waypoint.length));
}

/** The sequence of each waypoint of the route, in visiting order. */
export const waypointSequencesOf = (
  route: Pick<RouteHeader, 'waypointIds' | 'waypointSequences'>,
): number[] => route.waypointSequences ?? route.waypointIds.map((_, position) => position);

/** The sequence a waypoint added to the route next takes: after every sequence it ever used. */
export function nextWaypointSequenceOf(route: RouteHeader): number {
  return route.nextWaypointSequence ?? Math.max(-1, ...waypointSequencesOf(route)) + 1;
}

/** Transaction item creating the header; refuses to overwrite one (the import's last step). */
export function putNewHeaderItem(route: RouteHeader) {
  return {
    Put: { TableName: tableName(), Item: headerItem(route), ConditionExpression: 'attribute_not_exists(pk)' },
  };
}

export const getRouteHeader = (accountId: string, routeId: string) =>
  getRecord(routeKeys.route(accountId, routeId), headerFromItem);

/** One item of a TransactWriteItems request (a Put, Update, Delete or ConditionCheck). */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Replaces the header with `next` (whose version the caller has bumped) unless someone changed it since
 * `expectedVersion` was read; returns false on such a lost race. A change that writes more beside the header
 * goes through writeRouteChange (./route-header-writes).
 */
export const replaceRouteHeader = (next: RouteHeader, expectedVersion: number): Promise<boolean> =>
  conditionHeld(db.send(new PutCommand(replaceHeaderItem(next, expectedVersion).Put)));

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
  await conditionHeld(
    db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: routeKeys.route(accountId, routeId),
        ConditionExpression: 'deleting = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    ),
  );
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
  return items.map(headerFromItem).map(({ routeId, startTime }) => ({ routeId, startTime }));
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
