import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The bundles bench's floor (bench/bundles.ts): a function holding only what every function of the service
 * needs at the least, the DynamoDB document client and the Powertools logger, imported at init and the
 * client made on first use, as the service's functions do (functions/data/client.ts). Its bundle is built
 * and initialised as theirs are; their init times are checked as ratios over its own, measured in the same
 * run.
 */
const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME });
let db: DynamoDBDocumentClient | undefined;

export const handler = async (event: { pk: string; sk: string }) => {
  db ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const { Item } = await db.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }),
  );
  logger.info('read', { found: Item !== undefined });
  return Item;
};
