import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../../../functions/shared/zod';

/**
 * A reference of the bundles bench (bench/bundles.ts): the floor (bench/floor/handler.ts) and zod with one
 * schema, that validates the event. What zod itself costs a cold start, before any schema of the service.
 */
const Key = z.strictObject({ pk: z.string().check(z.minLength(1)), sk: z.string().check(z.minLength(1)) });
const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME });
let db: DynamoDBDocumentClient | undefined;

export const handler = async (event: unknown) => {
  const key = Key.parse(event);
  db ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const { Item } = await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: key }));
  logger.info('read', { found: Item !== undefined });
  return Item;
};
