import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../functions/data/client';
import { driverKeys } from '../../functions/data/drivers';
import { putEventItem } from '../../functions/data/events';
import { headerItem, routeKeys } from '../../functions/data/routes';
import { exampleEvent } from '../../functions/models/event-docs';

/**
 * Items that no endpoint of this slice can write yet (routes come with the import pipeline, locations
 * with the driver app), written with the entity modules' own key builders.
 */
export async function seedActiveRoute(
  ref: { accountId: string; dcId: string; driverId: string },
  routeId: string,
  startTime: number,
) {
  // A header without rows: enough for the driver reads and for finishing the route.
  const item = headerItem({
    accountId: ref.accountId,
    dcId: ref.dcId,
    routeId,
    name: routeId,
    startTime,
    localDate: new Date(startTime).toISOString().slice(0, 10),
    assignedDriverId: ref.driverId,
    waypointIds: [],
    isActive: true,
    isFinalized: false,
    version: 1,
    importTxid: `seed-${routeId}`,
    createdAt: startTime,
  });
  await db.send(new PutCommand({ TableName: tableName(), Item: item }));
}

export async function readRoute(accountId: string, routeId: string) {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: routeKeys.route(accountId, routeId) }),
  );
  return Item;
}

export async function seedDriverLocation(
  ref: { accountId: string; dcId: string; driverId: string },
  location: { timestamp: number; latitude: number; longitude: number },
) {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: driverKeys.driver(ref.accountId, ref.dcId, ref.driverId),
      UpdateExpression: 'SET #location = :location',
      ExpressionAttributeNames: { '#location': 'location' },
      ExpressionAttributeValues: { ':location': location },
    }),
  );
}

/**
 * Writes a ROUTE_CREATED event item of a DC the way handlers do, inside a transaction (what the table's stream
 * and the pipe carry on). Returns the event's id and key, and when it was written.
 */
export async function seedRouteCreatedEvent(
  ref: { accountId: string; dcId: string },
  routeId: string,
  name = `Route ${routeId}`,
) {
  const put = putEventItem({
    ...ref,
    routeId,
    type: 'ROUTE_CREATED',
    details: { route: { ...exampleEvent('ROUTE_CREATED').details.route, id: routeId, name } },
    occurredAt: Date.now(),
  });
  await db.send(new TransactWriteCommand({ TransactItems: [put] }));
  const { event_id: eventId, pk, sk } = put.Put.Item;
  return { eventId: eventId as string, key: { pk: pk as string, sk: sk as string }, writtenAt: Date.now() };
}
