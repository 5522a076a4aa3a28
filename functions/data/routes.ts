import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionFailure, queryItems, tableName } from './client';
import { TABLE_SCHEMA, type TableKey } from './table-schema';

/** A route and everything imported with it live in one partition; the route header is its `ROUTE` item. */
const routePartition = (accountId: string, routeId: string) => `ROUTE#${accountId}/${routeId}`;

export const routeKeys = {
  route: (accountId: string, routeId: string): TableKey => ({
    pk: routePartition(accountId, routeId),
    sk: 'ROUTE',
  }),
  /**
   * Sparse GSI1 entry carried by a route only while it is active or started for a driver, sorted by
   * planned start: "active routes of a driver" is one query.
   */
  activeForDriver: (
    accountId: string,
    dcId: string,
    driverId: string,
    startTime: number,
    routeId: string,
  ) => ({
    gsi1pk: `ACTIVE_ROUTES#${accountId}/${dcId}/${driverId}`,
    gsi1sk: `${String(startTime).padStart(15, '0')}#${routeId}`,
  }),
};

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

/**
 * Finalizes one route: sets the final state, bumps `version` and leaves the driver's active index.
 * Returns false when the route was already finalized (a concurrent finish won).
 */
export async function finalizeRoute(accountId: string, routeId: string, at: number): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: routeKeys.route(accountId, routeId),
        UpdateExpression:
          'SET is_finalized = :true, is_active = :false, finalized_timestamp = :at, version = version + :one REMOVE gsi1pk, gsi1sk',
        ConditionExpression: 'attribute_exists(pk) AND is_finalized = :false',
        ExpressionAttributeValues: { ':true': true, ':false': false, ':at': at, ':one': 1 },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
