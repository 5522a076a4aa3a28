import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  conditionFailedAt,
  db,
  type Item,
  isConditionFailure,
  isTransactionConflict,
  queryItems,
  tableName,
  writeTransaction,
} from './client';
import { codec, sortedSet } from './codec';
import { claimTokenItem, releaseTokenItems } from './driver-tokens';
import { getRecord, updateIfHeld } from './item-ops';
import { decodeNextToken, encodeNextToken, type Page } from './pagination';
import { type RouteHeader, replaceHeaderItem, routeUnchangedCheck } from './routes';
import type { TableKey } from './table-schema';

export interface DriverLocation {
  timestamp: number;
  latitude: number;
  longitude: number;
}

export interface Driver {
  accountId: string;
  dcId: string;
  driverId: string;
  name: string;
  /** The spec returns it in driver reads, so it is kept; drivers authenticate by its hash. */
  loginToken: string;
  location?: DriverLocation;
  /** Routes the driver has started and not finished; kept in the same transactions as start and finish. */
  startedRouteIds: string[];
  /**
   * Routes assigned to the driver that are neither finished nor being deleted, kept in the same
   * transactions as the routes' headers (import, assignment, finish, deletion). Routes assigned before
   * the set existed are missing from it.
   */
  assignedRouteIds: string[];
  /** Bumped by every change of those two sets; a driver's deletion is conditional on it. */
  routesVersion: number;
  /**
   * The arrival detection's state (domain/arrivals.ts): of each of the driver's started routes, its open visits
   * and latest closed ones, on the item every ping writes anyway, so that a ping reads it for free; few, so
   * that the item stays within the 1 KB of one write unit. Changed only with a visit's record.
   */
  recentVisits: RecentVisit[];
  /** Bumped by every change of recentVisits; those changes are conditional on it. */
  visitsVersion: number;
  createdAt: number;
  updatedAt: number;
}

/** A visit of a stop of one of the driver's started routes (data/route-visits.ts keeps every visit). */
export interface RecentVisit {
  routeId: string;
  waypointId: string;
  arrivedAt: number;
  departedAt?: number;
}

const recentVisitCodec = codec<RecentVisit>({ routeId: {}, waypointId: {}, arrivedAt: {}, departedAt: {} });
const recentVisitItem = (visit: RecentVisit) => recentVisitCodec.toItem(visit);

/** Ids never contain "/" (see endpoints/common), so "/" separates the parts of composite keys. */
const dcPartition = (accountId: string, dcId: string) => `DC#${accountId}/${dcId}`;
const DRIVER_PREFIX = 'DRIVER#';

export const driverKeys = {
  driver: (accountId: string, dcId: string, driverId: string): TableKey => ({
    pk: dcPartition(accountId, dcId),
    sk: `${DRIVER_PREFIX}${driverId}`,
  }),
};

/**
 * The route sets and their version change by update expressions only (a string set, a counter), and so do
 * the recent visits and theirs.
 */
const driverCodec = codec<Driver>({
  accountId: {},
  dcId: {},
  driverId: {},
  name: {},
  loginToken: {},
  location: {},
  startedRouteIds: { read: sortedSet },
  assignedRouteIds: { read: sortedSet },
  routesVersion: { read: (stored) => (stored as number | undefined) ?? 0 },
  recentVisits: { read: (stored) => ((stored ?? []) as Item[]).map(recentVisitCodec.fromItem) },
  visitsVersion: { read: (stored) => (stored as number | undefined) ?? 0 },
  createdAt: {},
  updatedAt: {},
});

/** The driver's item as created (the sets, versions and detection state come with later updates). */
export const driverItem = (driver: Driver) => ({
  ...driverKeys.driver(driver.accountId, driver.dcId, driver.driverId),
  entity: 'DRIVER',
  ...driverCodec.toItem(driver),
});

const fromItem = driverCodec.fromItem;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Creates the driver and claims its token together; 'id_taken' when the id is taken in this DC,
 * 'token_taken' when another driver holds the token's claim.
 */
export async function insertDriver(driver: Driver): Promise<'created' | 'id_taken' | 'token_taken'> {
  try {
    await writeTransaction([
      {
        Put: {
          TableName: tableName(),
          Item: driverItem(driver),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      claimTokenItem(driver, driver.loginToken),
    ]);
    return 'created';
  } catch (error) {
    if (conditionFailedAt(error, 0)) return 'id_taken';
    if (conditionFailedAt(error, 1)) return 'token_taken';
    throw error;
  }
}

export const getDriver = (accountId: string, dcId: string, driverId: string) =>
  getRecord(driverKeys.driver(accountId, dcId, driverId), fromItem);

export async function listDrivers(
  accountId: string,
  dcId: string,
  page: { limit?: number; nextToken?: string },
): Promise<Page<Driver>> {
  const partition = dcPartition(accountId, dcId);
  const { items, lastKey } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': partition, ':prefix': DRIVER_PREFIX },
      ExclusiveStartKey: decodeNextToken(page.nextToken, partition, DRIVER_PREFIX),
    },
    page.limit,
  );
  return { items: items.map(fromItem), nextToken: encodeNextToken(lastKey) };
}

/** Renames a driver; returns undefined when the driver does not exist. */
export async function renameDriver(
  accountId: string,
  dcId: string,
  driverId: string,
  name: string,
  at: number,
): Promise<Driver | undefined> {
  const updated = await updateIfHeld({
    Key: driverKeys.driver(accountId, dcId, driverId),
    UpdateExpression: 'SET #name = :name, updated_at = :at',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#name': 'name' },
    ExpressionAttributeValues: { ':name': name, ':at': at },
  });
  return updated ? fromItem(updated) : undefined;
}

/**
 * Gives the driver `newToken` (and `name`, when given) unless its token changed since `driver` was read:
 * claims the new token and frees the old one in the same transaction. 'changed' when the driver is gone
 * or holds another token now, 'token_taken' when another driver holds the new token.
 */
export async function changeDriverToken(
  driver: Driver,
  newToken: string,
  name: string | undefined,
  at: number,
): Promise<{ outcome: 'updated'; driver: Driver } | { outcome: 'changed' | 'token_taken' }> {
  try {
    await writeTransaction([
      {
        Update: {
          TableName: tableName(),
          Key: driverKeys.driver(driver.accountId, driver.dcId, driver.driverId),
          UpdateExpression: `SET login_token = :new, updated_at = :at${name === undefined ? '' : ', #name = :name'}`,
          ConditionExpression: 'login_token = :old',
          ...(name === undefined ? {} : { ExpressionAttributeNames: { '#name': 'name' } }),
          ExpressionAttributeValues: {
            ':new': newToken,
            ':old': driver.loginToken,
            ':at': at,
            ...(name === undefined ? {} : { ':name': name }),
          },
        },
      },
      ...releaseTokenItems(driver, driver.loginToken),
      claimTokenItem(driver, newToken),
    ]);
    return {
      outcome: 'updated',
      driver: { ...driver, loginToken: newToken, name: name ?? driver.name, updatedAt: at },
    };
  } catch (error) {
    if (conditionFailedAt(error, 0) || isTransactionConflict(error)) return { outcome: 'changed' };
    if (conditionFailedAt(error, 3)) return { outcome: 'token_taken' };
    throw error;
  }
}

/** Routes whose headers one deletion transaction rewrites at most (100 items, less the driver's own). */
export const ROUTES_PER_DELETION_TRANSACTION = 90;

/** Transaction items leaving each of `routes` without a driver (their headers, one version on). */
const unassignedHeaderItems = (routes: readonly RouteHeader[]): TransactItem[] =>
  routes.map((route) =>
    replaceHeaderItem({ ...route, assignedDriverId: undefined, version: route.version + 1 }, route.version),
  );

/**
 * Deletes the driver and frees its token, so the token stops working at once, and leaves `held` (its
 * unfinished routes, as read) without a driver in the same transaction; on condition that the driver still
 * holds that token, has no started route, its route sets did not change since `driver` was read and no route
 * of `held` changed since read. More routes than one transaction rewrites are taken off the driver's assigned
 * set and left without a driver a batch at a time first, on condition that the sets and the batch's routes did
 * not change since read: 'released' when a batch was, and the driver is to be read again. 'changed' when any
 * condition failed, or another transaction got in the way.
 */
export async function deleteDriver(
  driver: Driver,
  held: readonly RouteHeader[],
): Promise<'deleted' | 'released' | 'changed'> {
  if (held.length > ROUTES_PER_DELETION_TRANSACTION) {
    const batch = held.slice(0, ROUTES_PER_DELETION_TRANSACTION);
    const released = await writeIfRoutesUnchanged(
      driver,
      {
        update: 'DELETE assigned_route_ids :routes ADD routes_version :one',
        values: { ':routes': new Set(batch.map((route) => route.routeId)), ':one': 1 },
      },
      unassignedHeaderItems(batch),
    );
    return released ? 'released' : 'changed';
  }
  const deleted = await writeIfRoutesUnchanged(
    driver,
    {
      // A string set is never empty: the attribute goes when the last started route finishes.
      condition: 'login_token = :token AND attribute_not_exists(started_route_ids)',
      values: { ':token': driver.loginToken },
    },
    [...releaseTokenItems(driver, driver.loginToken), ...unassignedHeaderItems(held)],
  );
  return deleted ? 'deleted' : 'changed';
}

/**
 * Updates (`update`) or else deletes the driver item together with `alsoWrite`, on condition that it exists,
 * that `condition` holds and that its route sets did not change since `driver` was read. False when any
 * condition (or one of `alsoWrite`'s) failed, or another transaction got in the way.
 */
async function writeIfRoutesUnchanged(
  driver: Driver,
  write: { update?: string; condition?: string; values: Record<string, unknown> },
  alsoWrite: TransactItem[],
): Promise<boolean> {
  const { routesVersion } = driver;
  const target = {
    TableName: tableName(),
    Key: driverKeys.driver(driver.accountId, driver.dcId, driver.driverId),
    ConditionExpression: [
      'attribute_exists(pk)',
      ...(write.condition ? [write.condition] : []),
      routesVersion === 0 ? 'attribute_not_exists(routes_version)' : 'routes_version = :routes_version',
    ].join(' AND '),
    ExpressionAttributeValues: {
      ...write.values,
      ...(routesVersion === 0 ? {} : { ':routes_version': routesVersion }),
    },
  };
  const item: TransactItem = write.update
    ? { Update: { ...target, UpdateExpression: write.update } }
    : { Delete: target };
  try {
    await writeTransaction([item, ...alsoWrite]);
    return true;
  } catch (error) {
    if (isConditionFailure(error) || isTransactionConflict(error)) return false;
    throw error;
  }
}

export type SetChange = 'add' | 'remove';

/**
 * Transaction item changing the driver's route sets for one route: `assigned` as the route becomes or
 * stops being the driver's unfinished route, `started` as it starts or finishes. Conditional on the driver
 * existing, so a route never becomes the route of a driver deleted in the meantime (nor creates one), and
 * it bumps the version a deletion is conditional on: the two are ordered on this item.
 */
export function driverRoutesItem(
  ref: { accountId: string; dcId: string; driverId: string },
  routeId: string,
  change: { assigned?: SetChange; started?: SetChange },
): TransactItem {
  const sets = [
    ['assigned_route_ids', change.assigned],
    ['started_route_ids', change.started],
  ] as const;
  const added = sets.filter(([, how]) => how === 'add').map(([name]) => `, ${name} :route`);
  const removed = sets.filter(([, how]) => how === 'remove').map(([name]) => `${name} :route`);
  return {
    Update: {
      TableName: tableName(),
      Key: driverKeys.driver(ref.accountId, ref.dcId, ref.driverId),
      UpdateExpression: `ADD routes_version :one${added.join('')}${removed.length ? ` DELETE ${removed.join(', ')}` : ''}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':route': new Set([routeId]), ':one': 1 },
    },
  };
}

/**
 * Adds a route to its driver's sets (assigned, and started when it has started) on condition that the
 * header is still the one read: 'changed' when it is not, 'driver_gone' when the driver does not exist.
 */
export async function addRouteToSets(route: RouteHeader): Promise<'added' | 'changed' | 'driver_gone'> {
  const ref = { accountId: route.accountId, dcId: route.dcId, driverId: route.assignedDriverId as string };
  const started = route.startedTimestamp !== undefined;
  try {
    await writeTransaction([
      routeUnchangedCheck(route),
      driverRoutesItem(ref, route.routeId, { assigned: 'add', ...(started ? { started: 'add' } : {}) }),
    ]);
    return 'added';
  } catch (error) {
    if (conditionFailedAt(error, 0) || isTransactionConflict(error)) return 'changed';
    if (conditionFailedAt(error, 1)) return 'driver_gone';
    throw error;
  }
}

export type LocationUpdate =
  | { outcome: 'updated'; driver: Driver }
  /** A newer location was stored: the driver as it is. */
  | { outcome: 'older'; driver: Driver }
  | { outcome: 'not_this_driver' };

/**
 * Makes `location` the driver's latest unless a newer one is stored (pings may arrive out of order), on
 * condition that the driver item still holds `loginToken`: a deleted driver, or one re-created with
 * another token, is 'not_this_driver'.
 */
export async function updateLatestLocation(
  ref: { accountId: string; dcId: string; driverId: string; loginToken: string },
  location: DriverLocation,
): Promise<LocationUpdate> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: driverKeys.driver(ref.accountId, ref.dcId, ref.driverId),
        UpdateExpression: 'SET #location = :location',
        ConditionExpression:
          'login_token = :token AND (attribute_not_exists(#location) OR #location.#timestamp < :timestamp)',
        ExpressionAttributeNames: { '#location': 'location', '#timestamp': 'timestamp' },
        ExpressionAttributeValues: {
          ':location': location,
          ':timestamp': location.timestamp,
          ':token': ref.loginToken,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'updated', driver: fromItem(Attributes as Item) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The failed write's old item comes back as raw attribute values (the document client leaves errors alone).
    const raw = (error as { Item?: Record<string, AttributeValue> }).Item;
    const old = raw && unmarshall(raw);
    return old?.login_token === ref.loginToken
      ? { outcome: 'older', driver: fromItem(old) }
      : { outcome: 'not_this_driver' };
  }
}

/**
 * Transaction item replacing the driver's recent visits, on condition that they did not change since
 * `visitsVersion` was read (another ping's detection wrote them meanwhile: read again).
 */
export function replaceRecentVisitsItem(driver: Driver, visits: readonly RecentVisit[]): TransactItem {
  const { visitsVersion } = driver;
  return {
    Update: {
      TableName: tableName(),
      Key: driverKeys.driver(driver.accountId, driver.dcId, driver.driverId),
      UpdateExpression: 'SET recent_visits = :visits, visits_version = :next',
      // A driver stored before detection has no version: it reads as 0.
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(visits_version) OR visits_version = :version)',
      ExpressionAttributeValues: {
        ':visits': visits.map(recentVisitItem),
        ':next': visitsVersion + 1,
        ':version': visitsVersion,
      },
    },
  };
}
