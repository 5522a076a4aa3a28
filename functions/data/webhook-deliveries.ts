import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomId } from '../shared/crypto';
import { db, queryItems, tableName } from './client';
import { decodeNextToken, encodeNextToken, type Page, type PageRequest } from './pagination';

/** One delivery attempt of one event to one webhook, as `GET /webhooks/{id}/deliveries` shows it. */
export interface DeliveryAttempt {
  eventId: string;
  eventType: string;
  attempt: number;
  statusCode?: number;
  error?: string;
  durationMs: number;
  timestamp: number;
}

/** Attempts are kept 30 days: long enough to look into a failing receiver, short enough to stay small. */
const RETENTION_SECONDS = 30 * 86_400;

const partition = (accountId: string, webhookId: string) => `WEBHOOK#${accountId}/${webhookId}`;

/** Newest last in key order (timestamp, then a random suffix for attempts in the same millisecond). */
export async function recordDeliveryAttempt(
  accountId: string,
  webhookId: string,
  attempt: DeliveryAttempt,
): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        pk: partition(accountId, webhookId),
        sk: `${String(attempt.timestamp).padStart(15, '0')}#${randomId('')}`,
        entity: 'DELIVERY_ATTEMPT',
        event_id: attempt.eventId,
        event_type: attempt.eventType,
        attempt: attempt.attempt,
        status_code: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.durationMs,
        timestamp: attempt.timestamp,
        expires_at: Math.floor(attempt.timestamp / 1000) + RETENTION_SECONDS,
      },
    }),
  );
}

/** One page of the attempts, newest first. */
export async function listDeliveryAttempts(
  accountId: string,
  webhookId: string,
  page: PageRequest,
): Promise<Page<DeliveryAttempt>> {
  const pk = partition(accountId, webhookId);
  const { items, lastKey } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ExclusiveStartKey: decodeNextToken(page.nextToken, pk, ''),
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    page.limit,
  );
  const attempts = items.map((item) => ({
    eventId: item.event_id,
    eventType: item.event_type,
    attempt: item.attempt,
    statusCode: item.status_code,
    error: item.error,
    durationMs: item.duration_ms,
    timestamp: item.timestamp,
  }));
  return { items: attempts, nextToken: encodeNextToken(lastKey) };
}
