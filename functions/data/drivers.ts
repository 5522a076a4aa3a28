import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../shared/crypto';
import { db, type Item, isConditionFailure, queryItems, tableName } from './client';
import { decodeNextToken, encodeNextToken, type Page } from './pagination';
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
  createdAt: number;
  updatedAt: number;
}

/** Ids never contain "/" (see endpoints/common), so "/" separates the parts of composite keys. */
const dcPartition = (accountId: string, dcId: string) => `DC#${accountId}/${dcId}`;
const DRIVER_PREFIX = 'DRIVER#';

export const driverKeys = {
  driver: (accountId: string, dcId: string, driverId: string): TableKey => ({
    pk: dcPartition(accountId, dcId),
    sk: `${DRIVER_PREFIX}${driverId}`,
  }),
  /** Driver-app authentication looks drivers up by token hash. */
  loginToken: (tokenHash: string, accountId: string, dcId: string, driverId: string): TableKey => ({
    pk: `DRIVER_TOKEN#${tokenHash}`,
    sk: `${accountId}/${dcId}/${driverId}`,
  }),
};

function toItem(driver: Driver) {
  return {
    ...driverKeys.driver(driver.accountId, driver.dcId, driver.driverId),
    entity: 'DRIVER',
    account_id: driver.accountId,
    dc_id: driver.dcId,
    driver_id: driver.driverId,
    name: driver.name,
    login_token: driver.loginToken,
    location: driver.location,
    created_at: driver.createdAt,
    updated_at: driver.updatedAt,
  };
}

function fromItem(item: Item): Driver {
  return {
    accountId: item.account_id,
    dcId: item.dc_id,
    driverId: item.driver_id,
    name: item.name,
    loginToken: item.login_token,
    location: item.location,
    startedRouteIds: item.started_route_ids ? [...(item.started_route_ids as Set<string>)].sort() : [],
    createdAt: item.created_at,
    updatedAt: item.updated_at,
  };
}

/** The drivers whose login token has this hash (two when two drivers chose the same token). */
export async function findTokenOwners(
  tokenHash: string,
): Promise<{ accountId: string; dcId: string; driverId: string }[]> {
  const { items } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': driverKeys.loginToken(tokenHash, '', '', '').pk },
      ConsistentRead: true,
    },
    2,
  );
  return items.map((item) => ({ accountId: item.account_id, dcId: item.dc_id, driverId: item.driver_id }));
}

function tokenItemKey(driver: Pick<Driver, 'accountId' | 'dcId' | 'driverId' | 'loginToken'>): TableKey {
  return driverKeys.loginToken(sha256Hex(driver.loginToken), driver.accountId, driver.dcId, driver.driverId);
}

/** Creates the driver and its token lookup together; returns false when the id is taken in this DC. */
export async function insertDriver(driver: Driver): Promise<boolean> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: toItem(driver),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: {
                ...tokenItemKey(driver),
                entity: 'DRIVER_TOKEN',
                account_id: driver.accountId,
                dc_id: driver.dcId,
                driver_id: driver.driverId,
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getDriver(
  accountId: string,
  dcId: string,
  driverId: string,
): Promise<Driver | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName,
      Key: driverKeys.driver(accountId, dcId, driverId),
      ConsistentRead: true,
    }),
  );
  return Item ? fromItem(Item) : undefined;
}

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
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: driverKeys.driver(accountId, dcId, driverId),
        UpdateExpression: 'SET #name = :name, updated_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':name': name, ':at': at },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? fromItem(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Deletes the driver and its token lookup, so the token stops working at once; returns false when the
 * driver is gone or has started routes.
 */
export async function deleteDriver(driver: Driver): Promise<boolean> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName,
              Key: driverKeys.driver(driver.accountId, driver.dcId, driver.driverId),
              // A string set is never empty: the attribute goes when the last started route finishes.
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(started_route_ids)',
            },
          },
          { Delete: { TableName: tableName, Key: tokenItemKey(driver) } },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Transaction item that fails unless the driver exists. */
export function driverExistsCheck(ref: { accountId: string; dcId: string; driverId: string }) {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: driverKeys.driver(ref.accountId, ref.dcId, ref.driverId),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
}

/**
 * Transaction item adding a started route to the driver, or removing a finished one. Its condition (the
 * driver exists) keeps a route from starting for a driver deleted in the meantime.
 */
export function startedRouteItem(
  ref: { accountId: string; dcId: string; driverId: string },
  routeId: string,
  change: 'add' | 'remove',
) {
  return {
    Update: {
      TableName: tableName,
      Key: driverKeys.driver(ref.accountId, ref.dcId, ref.driverId),
      UpdateExpression: `${change === 'add' ? 'ADD' : 'DELETE'} started_route_ids :route`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':route': new Set([routeId]) },
    },
  };
}

export type LocationUpdate =
  | { outcome: 'updated'; driver: Driver }
  | { outcome: 'older' }
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
        TableName: tableName,
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
    const old = (error as { Item?: Record<string, { S?: string }> }).Item;
    return old?.login_token?.S === ref.loginToken ? { outcome: 'older' } : { outcome: 'not_this_driver' };
  }
}
