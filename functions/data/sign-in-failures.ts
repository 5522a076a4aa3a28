import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryItems, tableName } from './client';
import { codec } from './codec';
import type { TableKey } from './table-schema';

/**
 * Failed driver-app sign-ins of one source address, one item per window: the tags of the different unknown
 * tokens it presented (a string set, so a token tried again counts once), deleted by TTL after its window.
 */
export const failureKey = (source: string, windowStart: number): TableKey => ({
  pk: `SIGN_IN_FAILURES#${source}`,
  sk: String(windowStart).padStart(15, '0'),
});

/** A window's failures: the string set, changed by update expressions only. */
const windowCodec = codec<{ tokenTags: Set<string> }>({
  tokenTags: { read: (stored) => new Set((stored as Set<string> | undefined) ?? []) },
});

/**
 * The different token tags `source` failed with in each window that starts at `since` or later, by the
 * window's start.
 */
export async function failedTokenTags(source: string, since: number): Promise<Map<number, Set<string>>> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND sk >= :since',
    ExpressionAttributeValues: {
      ':pk': failureKey(source, since).pk,
      ':since': failureKey(source, since).sk,
    },
  });
  return new Map(items.map((item) => [Number(item.sk), windowCodec.fromItem(item).tokenTags]));
}

/** Adds a failed token's tag to the source's window (created when it is the window's first failure). */
export async function recordFailedToken(
  source: string,
  window: { start: number; expiresAt: number },
  tokenTag: string,
): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: failureKey(source, window.start),
      UpdateExpression: 'ADD token_tags :tag SET entity = :entity, expires_at = :expires',
      ExpressionAttributeValues: {
        ':tag': new Set([tokenTag]),
        ':entity': 'SIGN_IN_FAILURES',
        ':expires': Math.floor(window.expiresAt / 1000),
      },
    }),
  );
}
