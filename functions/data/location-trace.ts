import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../shared/errors';
import { PAGE_BYTE_BUDGET } from '../shared/limits';
import { db, queryItems, tableName } from './client';
import { codec } from './codec';
import type { DriverLocation } from './drivers';
import { decodeNextToken, encodeNextToken, type Page, type PageRequest } from './pagination';
import type { TableKey } from './table-schema';

/** Trace points are kept 90 days (docs/api.md §9): long enough for analytics of any finished route. */
export const TRACE_RETENTION_DAYS = 90;
const RETENTION_SECONDS = TRACE_RETENTION_DAYS * 86_400;

/** One partition per driver, sorted by the ping's own timestamp: a route's trace is one range query. */
const traceKey = (ref: DriverRef, timestamp: number): TableKey => ({
  pk: `TRACE#${ref.accountId}/${ref.dcId}/${ref.driverId}`,
  sk: String(timestamp).padStart(15, '0'),
});

interface DriverRef {
  accountId: string;
  dcId: string;
  driverId: string;
}

const pointCodec = codec<DriverLocation>({ timestamp: {}, latitude: {}, longitude: {} });

/** A trace point as stored. */
export const tracePointItem = (ref: DriverRef, point: DriverLocation) => ({
  ...traceKey(ref, point.timestamp),
  entity: 'TRACE_POINT',
  ...pointCodec.toItem(point),
  expires_at: Math.floor(point.timestamp / 1000) + RETENTION_SECONDS,
});

/** Appends a point to the driver's trace; a repeated ping (same timestamp) overwrites itself. */
export async function appendTracePoint(ref: DriverRef, point: DriverLocation): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: tracePointItem(ref, point) }));
}

/** The driver's trace between two timestamps (inclusive), oldest first. */
export async function listTracePoints(ref: DriverRef, from: number, to: number): Promise<DriverLocation[]> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': traceKey(ref, 0).pk,
      ':from': traceKey(ref, from).sk,
      ':to': traceKey(ref, to).sk,
    },
  });
  return items.map(pointCodec.fromItem);
}

/**
 * One page of the driver's trace between two timestamps (inclusive), oldest first: at most `limit` points,
 * fewer once they reach PAGE_BYTE_BUDGET, after the page `nextToken` ended (which must lie in the range).
 */
export async function pageTracePoints(
  ref: DriverRef,
  from: number,
  to: number,
  page: PageRequest,
): Promise<Page<DriverLocation>> {
  const low = traceKey(ref, from);
  const high = traceKey(ref, to);
  const start = decodeNextToken(page.nextToken, low.pk, '');
  // DynamoDB refuses a start key outside the key condition (a 500): such a token is not this list's.
  if (start && (start.sk < low.sk || start.sk > high.sk))
    throw new ValidationError('query.next_token: is not a token this list returned');
  const { items, lastKey } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': low.pk, ':from': low.sk, ':to': high.sk },
      ExclusiveStartKey: start,
    },
    page.limit,
    { stopAfterBytes: PAGE_BYTE_BUDGET },
  );
  return { items: items.map(pointCodec.fromItem), nextToken: encodeNextToken(lastKey) };
}
