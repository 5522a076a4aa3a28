import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  type NativeAttributeValue,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../shared/env';

/** Created once per cold start; the endpoint comes from AWS_ENDPOINT_URL_DYNAMODB locally, never from code. */
export const db = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableName = requireEnv('TABLE_NAME');

/** True when a write was refused by its condition (as a plain call or inside a transaction). */
export function isConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    error.name === 'TransactionCanceledException' &&
    !!reasons?.some((r) => r.Code === 'ConditionalCheckFailed')
  );
}

export type Item = Record<string, NativeAttributeValue>;

/**
 * Runs a query page after page until `limit` items (or, without a limit, all of them) are read.
 * Returns the key to continue from when more remain.
 */
export async function queryItems(
  input: Omit<QueryCommandInput, 'TableName' | 'Limit'>,
  limit?: number,
): Promise<{ items: Item[]; lastKey?: Record<string, unknown> }> {
  const items: Item[] = [];
  let startKey = input.ExclusiveStartKey;
  do {
    const page = await db.send(
      new QueryCommand({
        ...input,
        TableName: tableName,
        ExclusiveStartKey: startKey,
        Limit: limit === undefined ? undefined : limit - items.length,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && (limit === undefined || items.length < limit));
  return { items, lastKey: startKey };
}
