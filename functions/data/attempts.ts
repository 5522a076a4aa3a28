import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, type Item, queryItems, tableName } from './client';
import { routeKeys, type TransactItem } from './routes';
import type { TableKey } from './table-schema';

export type AttemptStatus = 'SUCCESSFUL' | 'FAILED' | 'VISIT_LATER';
export type ItemOutcome = 'SUCCESSFUL' | 'FAILED';

export interface Reason {
  code: string;
  message: string;
}

/** One visit of a waypoint, as the driver app reported it. Never changed once written. */
export interface Attempt {
  id: string;
  waypointId: string;
  /** The waypoint's position in the route. */
  sequence: number;
  timestamp: number;
  status: AttemptStatus;
  /** Why the attempt failed; required when FAILED, and the reason of every item the attempt does not list. */
  reason?: Reason;
  location?: { latitude: number; longitude: number };
  /** Items given their own outcome; the others take the attempt's (VISIT_LATER leaves them as they were). */
  items: { id: string; status: ItemOutcome; reason?: Reason }[];
  driverId: string;
  recordedAt: number;
}

/** Attempts live in their route's partition, keyed by the client's attempt id: a retried call finds its own. */
const PREFIX = 'ATTEMPT#';

const attemptKey = (accountId: string, routeId: string, attemptId: string): TableKey => ({
  pk: routeKeys.route(accountId, routeId).pk,
  sk: `${PREFIX}${attemptId}`,
});

function fromItem(item: Item): Attempt {
  return {
    id: item.attempt_id,
    waypointId: item.waypoint_id,
    sequence: item.sequence,
    timestamp: item.timestamp,
    status: item.status,
    reason: item.reason,
    location: item.location,
    items: item.items ?? [],
    driverId: item.driver_id,
    recordedAt: item.recorded_at,
  };
}

/** Transaction item writing a new attempt; its condition fails when the id was already recorded. */
export function putNewAttemptItem(accountId: string, routeId: string, attempt: Attempt): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...attemptKey(accountId, routeId, attempt.id),
        entity: 'ATTEMPT',
        attempt_id: attempt.id,
        waypoint_id: attempt.waypointId,
        sequence: attempt.sequence,
        timestamp: attempt.timestamp,
        status: attempt.status,
        reason: attempt.reason,
        location: attempt.location,
        items: attempt.items,
        driver_id: attempt.driverId,
        recorded_at: attempt.recordedAt,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function getAttempt(
  accountId: string,
  routeId: string,
  attemptId: string,
): Promise<Attempt | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName,
      Key: attemptKey(accountId, routeId, attemptId),
      ConsistentRead: true,
    }),
  );
  return Item ? fromItem(Item) : undefined;
}

/** Every attempt of the route, in the order they happened (timestamp, then the order they were recorded). */
export async function listAttempts(accountId: string, routeId: string): Promise<Attempt[]> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': routeKeys.route(accountId, routeId).pk, ':prefix': PREFIX },
    ConsistentRead: true,
  });
  return items.map(fromItem).sort((a, b) => a.timestamp - b.timestamp || a.recordedAt - b.recordedAt);
}
