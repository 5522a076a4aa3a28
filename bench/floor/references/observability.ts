import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { logger, observed } from '../../../functions/shared/observability';

/**
 * A reference of the bundles bench (bench/bundles.ts): the floor (bench/floor/handler.ts) with the service's
 * observability instead of a bare logger: Powertools' logger and metrics middleware
 * (functions/shared/observability.ts), as every function has them.
 */
let db: DynamoDBDocumentClient | undefined;

export const handler = observed(async (event: { pk: string; sk: string }) => {
  db ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const { Item } = await db.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  logger.info('read', { found: Item !== undefined });
  return Item;
});
