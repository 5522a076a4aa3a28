import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { driverKeys } from '../../functions/data/drivers';
import { tracePointItem } from '../../functions/data/location-trace';
import { failureKey } from '../../functions/data/sign-in-failures';
import { DRIVER_SIGN_IN_FAILURES } from '../../functions/shared/limits';
import { latestLocationUpdate } from '../raw-ping';
import { lambdaContext, type WarmPaths } from './lambda-context';

/**
 * driver_location (bench/driver-location.ts): `driver-app/location` invoked with the event API Gateway sends
 * it for a driver's ping, against the work a ping must do in the table once the function's process knows the
 * token (it trusts a lookup for 30 s, as the write re-checks the token): the Query of the caller address's
 * failed sign-ins, the UpdateItem of the driver's latest location (conditional on the item holding the token
 * and on the ping being newer, the new item returned), then the trace point's PutItem, one after another as the
 * handler makes them. Both paths ping the same driver with timestamps that increase across both, so every
 * update succeeds and every trace point is new.
 */

export interface ReportLocationInput {
  /** The event of a ping, without its body (each invocation gets a new ping). */
  event: APIGatewayProxyEvent;
  table: string;
  driver: { accountId: string; dcId: string; driverId: string; loginToken: string };
}

export const warmPaths: WarmPaths<ReportLocationInput> = async (handler, input) => {
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const { driver } = input;
  // The event's source address is an IPv4 address: the sign-in source its failures are counted under.
  const source = input.event.requestContext.identity.sourceIp;
  let last = 0;
  let sequence = 0;
  const nextPing = () => {
    last = Math.max(last + 1, Date.now());
    sequence++;
    return { timestamp: last, latitude: 52.3 + (sequence % 1000) * 0.0001, longitude: 13.1 };
  };
  return {
    handler: async () => {
      const ping = nextPing();
      const event = {
        ...input.event,
        body: JSON.stringify({
          timestamp: ping.timestamp,
          location: { latitude: ping.latitude, longitude: ping.longitude },
        }),
        requestContext: { ...input.event.requestContext, requestId: `bench-request-${sequence}` },
      };
      const response = (await handler(event, lambdaContext(sequence, 29_000))) as APIGatewayProxyResult;
      if (response?.statusCode !== 200 || response.body !== '{"status":"success","data":{}}')
        throw new Error(
          `the handler answered ${response?.statusCode}: ${String(response?.body).slice(0, 300)}`,
        );
    },
    raw: async () => {
      const ping = nextPing();
      const now = Date.now();
      const since = failureKey(
        source,
        now - (now % DRIVER_SIGN_IN_FAILURES.windowMs) - DRIVER_SIGN_IN_FAILURES.windowMs,
      );
      await raw.send(
        new QueryCommand({
          TableName: input.table,
          KeyConditionExpression: 'pk = :pk AND sk >= :since',
          ExpressionAttributeValues: { ':pk': since.pk, ':since': since.sk },
        }),
      );
      await raw.send(
        new UpdateCommand(
          latestLocationUpdate(
            input.table,
            driverKeys.driver(driver.accountId, driver.dcId, driver.driverId),
            ping,
            driver.loginToken,
          ),
        ),
      );
      await raw.send(new PutCommand({ TableName: input.table, Item: tracePointItem(driver, ping) }));
    },
  };
};
