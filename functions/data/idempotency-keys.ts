import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { sha256Hex } from '../shared/crypto';
import { db, isConditionFailure, tableName } from './client';
import { codec } from './codec';
import type { TableKey } from './table-schema';

/** Whose keys a key is among: an account's (API-key requests), or one driver's (the driver app's). */
export type IdempotencyScope =
  | { accountId: string }
  | { accountId: string; driver: { dcId: string; driverId: string } };

/**
 * One Idempotency-Key of a scope: a partition per account (a driver's within its account's ids, which never
 * hold `/`), the key itself only as its SHA-256 (a client's key is any text of its own).
 */
export function idempotencyKeyKey(scope: IdempotencyScope, key: string): TableKey {
  const owner =
    'driver' in scope ? `${scope.accountId}/${scope.driver.dcId}/${scope.driver.driverId}` : scope.accountId;
  return { pk: `IDEMPOTENCY#${owner}`, sk: `KEY#${sha256Hex(key)}` };
}

/** The first answer to a key's request, as it is replayed: status, headers and body (gzipped). */
export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A key another request holds: still in flight, or answered. */
export type HeldKey =
  | { state: 'IN_FLIGHT'; requestHash: string; inFlightUntil: number }
  | { state: 'ANSWERED'; requestHash: string; answer: StoredAnswer };

/** A key's record: locked by a request (in flight until its function's deadline), then its answer kept. */
interface IdempotencyRecord {
  state: 'IN_FLIGHT' | 'ANSWERED';
  requestHash: string;
  lockId: string;
  /** Epoch ms; removed once the answer is kept. */
  inFlightUntil?: number;
  answer?: StoredAnswer;
}

/** `state`, `lock_id`, `in_flight_until` and `answer` are also named by the writes' expressions below. */
const recordCodec = codec<IdempotencyRecord>({
  state: {},
  requestHash: {},
  lockId: {},
  inFlightUntil: {},
  answer: {},
});

/**
 * Locks the key for one request, or gives the record of the request that holds it. A key is free when it
 * was never used, when its record expired (DynamoDB's TTL deletes items up to days late) or when the request
 * that locked it can no longer be running (its function's deadline passed: it timed out or crashed).
 */
export async function lockIdempotencyKey(
  key: TableKey,
  lock: { requestHash: string; lockId: string; inFlightUntil: number; expiresAt: number; now: number },
): Promise<HeldKey | undefined> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          entity: 'IDEMPOTENCY_KEY',
          ...recordCodec.toItem({
            state: 'IN_FLIGHT',
            requestHash: lock.requestHash,
            lockId: lock.lockId,
            inFlightUntil: lock.inFlightUntil,
          }),
          expires_at: Math.floor(lock.expiresAt / 1000),
        },
        ConditionExpression:
          'attribute_not_exists(pk) OR expires_at < :now_s OR (#state = :in_flight AND in_flight_until < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':now_s': Math.floor(lock.now / 1000),
          ':now': lock.now,
          ':in_flight': 'IN_FLIGHT',
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return undefined;
  } catch (error) {
    // The failed write's old item comes back as raw attribute values (the document client leaves errors alone).
    const old = (error as { Item?: Record<string, AttributeValue> }).Item;
    if (!isConditionFailure(error) || !old) throw error;
    const held = recordCodec.fromItem(unmarshall(old));
    if (held.state === 'ANSWERED')
      return { state: 'ANSWERED', requestHash: held.requestHash, answer: held.answer as StoredAnswer };
    return { state: 'IN_FLIGHT', requestHash: held.requestHash, inFlightUntil: held.inFlightUntil as number };
  }
}

/**
 * Keeps the first answer of the lock's request, for `expiresAt`; false when the lock no longer holds the
 * key (it outlived its deadline and another request took the key).
 */
export async function keepIdempotentAnswer(
  key: TableKey,
  lockId: string,
  answer: StoredAnswer,
  expiresAt: number,
): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression:
          'SET #state = :answered, answer = :answer, expires_at = :expires REMOVE in_flight_until',
        ConditionExpression: 'lock_id = :lock',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':answered': 'ANSWERED',
          ':answer': answer,
          ':expires': Math.floor(expiresAt / 1000),
          ':lock': lockId,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Frees the key the lock holds, so that the request can be sent again (after an answer not kept). */
export async function releaseIdempotencyKey(key: TableKey, lockId: string): Promise<void> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: 'lock_id = :lock',
        ExpressionAttributeValues: { ':lock': lockId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
