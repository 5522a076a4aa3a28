import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { logger, observed } from '../../../functions/shared/observability';
import * as z from '../../../functions/shared/zod';

/**
 * A reference of the bundles bench (bench/bundles.ts): the floor (bench/floor/handler.ts), zod with one schema
 * and the service's observability (Powertools' logger and metrics middleware): the least any API
 * function of the service loads, before its own schemas and code.
 */
const Key = z.strictObject({ pk: z.string().check(z.minLength(1)), sk: z.string().check(z.minLength(1)) });
let db: DynamoDBDocumentClient | undefined;

export const handler = observed(async (event: unknown) => {
  const key = Key.parse(event);
  db ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const { Item } = await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: key }));
  logger.info('read', { found: Item !== undefined });
  return Item;
});
