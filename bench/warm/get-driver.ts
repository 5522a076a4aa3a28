import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { lambdaContext, type WarmPaths } from './lambda-context';

/**
 * get_driver (bench/drivers.ts): `drivers/get` invoked with the event API Gateway sends it for the driver,
 * against the one read it must make, a consistent GetItem of the driver's item.
 */

export interface GetDriverInput {
  event: APIGatewayProxyEvent;
  driverId: string;
  table: string;
  key: { pk: string; sk: string };
}

export const warmPaths: WarmPaths<GetDriverInput> = async (handler, input) => {
  const raw = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  let invocation = 0;
  return {
    handler: async () => {
      invocation++;
      const event = {
        ...input.event,
        requestContext: { ...input.event.requestContext, requestId: `bench-request-${invocation}` },
      };
      const response = (await handler(event, lambdaContext(invocation, 29_000))) as APIGatewayProxyResult;
      const id = JSON.parse(response?.body ?? '{}')?.data?.driver?.id;
      if (response?.statusCode !== 200 || id !== input.driverId)
        throw new Error(
          `the handler answered ${response?.statusCode}: ${String(response?.body).slice(0, 300)}`,
        );
    },
    raw: async () => {
      const { Item } = await raw.send(
        new GetCommand({ TableName: input.table, Key: input.key, ConsistentRead: true }),
      );
      if (Item?.driver_id !== input.driverId)
        throw new Error(`GetItem returned ${JSON.stringify(Item?.driver_id)}`);
    },
  };
};
