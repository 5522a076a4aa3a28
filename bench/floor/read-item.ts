import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The work of the bundles bench's floor (bench/floor/handler.ts) and of each of its references: one GetItem
 * through the DynamoDB document client, the client made on first use as the service's functions make it
 * (functions/data/client.ts). One home, so that the references differ from the floor only by what they add.
 */
let db: DynamoDBDocumentClient | undefined;

export async function readItem(key: { pk: string; sk: string }) {
  db ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const { Item } = await db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: key }));
  return Item;
}
