import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomId } from '../shared/crypto';
import { ValidationError } from '../shared/errors';
import { db, queryItems, tableName } from './client';
import { codec } from './codec';
import { conditionHeld, getRecord } from './item-ops';
import { decodeNextToken, encodeNextToken, type Page, type PageRequest } from './pagination';

/** One delivery attempt of one event to one webhook, as `GET /webhooks/{id}/deliveries` shows it. */
export interface DeliveryAttempt {
  /** The delivery the attempt belongs to (absent on attempts logged before deliveries had ids). */
  deliveryId?: string;
  /** When the delivery is a redelivery: the delivery it sends again. */
  redeliveryOf?: string;
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

const attemptCodec = codec<DeliveryAttempt>({
  deliveryId: {},
  redeliveryOf: {},
  eventId: {},
  eventType: {},
  attempt: {},
  statusCode: {},
  error: {},
  durationMs: {},
  timestamp: {},
});

/** An attempt as stored: newest last in key order (timestamp, then a random suffix for attempts in the same millisecond). */
export const deliveryAttemptItem = (accountId: string, webhookId: string, attempt: DeliveryAttempt) => ({
  pk: partition(accountId, webhookId),
  sk: `${String(attempt.timestamp).padStart(15, '0')}#${randomId('')}`,
  entity: 'DELIVERY_ATTEMPT',
  ...attemptCodec.toItem(attempt),
  expires_at: Math.floor(attempt.timestamp / 1000) + RETENTION_SECONDS,
});

export async function recordDeliveryAttempt(
  accountId: string,
  webhookId: string,
  attempt: DeliveryAttempt,
): Promise<void> {
  await db.send(
    new PutCommand({ TableName: tableName(), Item: deliveryAttemptItem(accountId, webhookId, attempt) }),
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
  return { items: items.map(attemptCodec.fromItem), nextToken: encodeNextToken(lastKey) };
}

// ---- Deliveries ----

/**
 * PENDING: failed, a retry is queued; SUCCEEDED: a 2xx answered; FAILED: given up (schedule used up, target
 * refused, webhook disabled).
 */
export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/**
 * One event sent to one webhook (all its attempts), or one redelivery of it: what a redelivery needs (the
 * event) and where the delivery stands. Written after its first attempt (a redelivery's when it is asked
 * for), kept as long as its attempts.
 */
export interface Delivery {
  deliveryId: string;
  /** Set on a redelivery: the original delivery (never another redelivery). */
  redeliveryOf?: string;
  eventId: string;
  eventType: string;
  /** The event as queued (JSON): a redelivery sends the same body. */
  eventJson: string;
  status: DeliveryStatus;
  /** The attempt that set the status (0 for a redelivery not yet attempted). */
  attempts: number;
  /** Why its last attempt failed, unless it succeeded. */
  error?: string;
  /** When its first attempt was made (also encoded in the id). */
  createdAt: number;
  /** On an original delivery: its latest redelivery, where that one stands, and when it was marked. */
  redeliveredAs?: string;
  redeliveryStatus?: DeliveryStatus;
  redeliveryRequestedAt?: number;
}

const deliveryPartition = (accountId: string, webhookId: string) =>
  `WEBHOOK_DELIVERY#${accountId}/${webhookId}`;

const ID_PREFIX = 'dlv_';
const TIME_DIGITS = 13;

/** A time as ids hold it: 13 digits (times past the year 2286 are taken as its last millisecond). */
const timePart = (epochMs: number) =>
  String(Math.min(Math.max(0, epochMs), 10 ** TIME_DIGITS - 1)).padStart(TIME_DIGITS, '0');

/** `dlv_<13-digit epoch ms of its first attempt><16 hex>`: ids sort by time, so a window is one key range. */
export function newDeliveryId(firstAttemptAt: number): string {
  return `${ID_PREFIX}${timePart(firstAttemptAt)}${randomBytes(8).toString('hex')}`;
}

const deliveryKey = (accountId: string, webhookId: string, deliveryId: string) => ({
  pk: deliveryPartition(accountId, webhookId),
  sk: deliveryId,
});

/** Written by update expressions only (recordDeliveryOutcome, markRedelivery, setRedeliveryStatus). */
const deliveryOf = codec<Delivery>({
  deliveryId: {},
  redeliveryOf: {},
  eventId: {},
  eventType: {},
  eventJson: {},
  status: {},
  attempts: {},
  error: {},
  createdAt: {},
  redeliveredAs: {},
  redeliveryStatus: {},
  redeliveryRequestedAt: {},
}).fromItem;

/** What an attempt tells of its delivery: the delivery's own fields, and when the attempt was made. */
export type DeliveryOutcome = Pick<
  Delivery,
  'deliveryId' | 'redeliveryOf' | 'eventId' | 'eventType' | 'eventJson' | 'status' | 'error'
> & {
  /** The attempt's number (the delivery's `attempts`). */
  attempt: number;
  /** The delivery's `createdAt`, set by its first write only. */
  firstAttemptAt: number;
  at: number;
};

/**
 * The update recording where a delivery stands after an attempt (creating its record on the first write). A
 * delivery that already ended keeps its status: a duplicate of an old queue message cannot change it, nor
 * can anything here touch the redelivery fields.
 */
export function deliveryOutcomeUpdate(accountId: string, webhookId: string, outcome: DeliveryOutcome) {
  const { status, error } = outcome;
  return {
    TableName: tableName(),
    Key: deliveryKey(accountId, webhookId, outcome.deliveryId),
    UpdateExpression:
      [
        'SET entity = :entity, delivery_id = :delivery_id, event_id = :event_id, event_type = :event_type',
        'event_json = if_not_exists(event_json, :event_json), created_at = if_not_exists(created_at, :created)',
        '#status = :status, attempts = :attempts, updated_at = :at, expires_at = :expires',
        ...(outcome.redeliveryOf ? ['redelivery_of = :redelivery_of'] : []),
        ...(error === undefined ? [] : ['#error = :error']),
      ].join(', ') + (error === undefined ? ' REMOVE #error' : ''),
    ConditionExpression: 'attribute_not_exists(#status) OR #status = :pending',
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
    ExpressionAttributeValues: {
      ':entity': 'WEBHOOK_DELIVERY',
      ':delivery_id': outcome.deliveryId,
      ':event_id': outcome.eventId,
      ':event_type': outcome.eventType,
      ':event_json': outcome.eventJson,
      ':created': outcome.firstAttemptAt,
      ':status': status,
      ':attempts': outcome.attempt,
      ':at': outcome.at,
      ':expires': Math.floor(outcome.firstAttemptAt / 1000) + RETENTION_SECONDS,
      ':pending': 'PENDING',
      ...(outcome.redeliveryOf ? { ':redelivery_of': outcome.redeliveryOf } : {}),
      ...(error === undefined ? {} : { ':error': error }),
    },
  };
}

/** Records where a delivery stands after an attempt (deliveryOutcomeUpdate); an ended one is left as it is. */
export async function recordDeliveryOutcome(
  accountId: string,
  webhookId: string,
  outcome: DeliveryOutcome,
): Promise<void> {
  await conditionHeld(db.send(new UpdateCommand(deliveryOutcomeUpdate(accountId, webhookId, outcome))));
}

export const getDelivery = (accountId: string, webhookId: string, deliveryId: string) =>
  getRecord(deliveryKey(accountId, webhookId, deliveryId), deliveryOf);

/**
 * Marks an original delivery as being sent again as `redeliveryId`, at `at`, if it still stands as
 * `seen` says (its latest redelivery then, or none): of two concurrent calls, one wins. With `onlyIfFailed`,
 * also only when it failed and has no redelivery pending or succeeded (what the window redelivery may
 * re-queue), a pending one marked before `markExpiredBefore` aside. False when the condition did not hold.
 */
export async function markRedelivery(
  accountId: string,
  webhookId: string,
  deliveryId: string,
  mark: {
    redeliveryId: string;
    seen: string | undefined;
    onlyIfFailed: boolean;
    at: number;
    markExpiredBefore: number;
  },
): Promise<boolean> {
  const conditions = [
    'attribute_exists(pk)',
    'attribute_not_exists(redelivery_of)',
    'NOT #status = :pending',
    mark.seen === undefined ? 'attribute_not_exists(redelivered_as)' : 'redelivered_as = :seen',
    ...(mark.onlyIfFailed ? [`#status = :failed AND ${REDELIVERABLE}`] : []),
  ];
  return conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(accountId, webhookId, deliveryId),
        UpdateExpression:
          'SET redelivered_as = :redelivery, redelivery_status = :pending, redelivery_requested_at = :at',
        ConditionExpression: conditions.map((condition) => `(${condition})`).join(' AND '),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':redelivery': mark.redeliveryId,
          ':pending': 'PENDING',
          ':at': mark.at,
          ...(mark.seen === undefined ? {} : { ':seen': mark.seen }),
          ...(mark.onlyIfFailed ? { ':failed': 'FAILED', ':mark_expired': mark.markExpiredBefore } : {}),
        },
      }),
    ),
  );
}

/**
 * An original delivery the window redelivery may re-queue: none of its redeliveries pending or succeeded,
 * but a pending one whose mark expired (marked before `:mark_expired`) counts as never queued: the call
 * that marked it may have died before it queued the redelivery.
 */
const REDELIVERABLE = `(${[
  'attribute_not_exists(redelivered_as)',
  'redelivery_status = :failed',
  '(redelivery_status = :pending AND redelivery_requested_at < :mark_expired)',
].join(' OR ')})`;

/**
 * Where the latest redelivery of an original delivery stands (its redelivery's own record says the same);
 * only while `redeliveryId` is still the latest. A redelivery that failed makes the original eligible again.
 */
export async function setRedeliveryStatus(
  accountId: string,
  webhookId: string,
  originalId: string,
  redeliveryId: string,
  status: DeliveryStatus,
): Promise<void> {
  await conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(accountId, webhookId, originalId),
        UpdateExpression: 'SET redelivery_status = :status',
        ConditionExpression: 'redelivered_as = :redelivery',
        ExpressionAttributeValues: { ':status': status, ':redelivery': redeliveryId },
      }),
    ),
  );
}

export interface FailedDeliveriesPage {
  deliveries: Delivery[];
  /** Present when the window holds more deliveries than this page looked at. */
  nextToken?: string;
}

/**
 * The original deliveries of the window whose first attempt was in [since, until] that failed and have no
 * redelivery pending (marked since `markExpiredBefore`) or succeeded, oldest first: at most `limit` of
 * them, and at most `examine` deliveries read (succeeded ones included), so one call's work is bounded.
 * `nextToken` continues after the last delivery looked at.
 */
export async function failedDeliveriesInWindow(
  accountId: string,
  webhookId: string,
  window: {
    since: number;
    until: number;
    limit: number;
    examine: number;
    markExpiredBefore: number;
    nextToken?: string;
  },
): Promise<FailedDeliveriesPage> {
  const pk = deliveryPartition(accountId, webhookId);
  const lower = `${ID_PREFIX}${timePart(window.since)}`;
  // '~' sorts after every character of an id's random part: the whole last millisecond is inside.
  const upper = `${ID_PREFIX}${timePart(window.until)}~`;
  let startKey: Record<string, unknown> | undefined = decodeWindowToken(window.nextToken, pk, lower, upper);
  const deliveries: Delivery[] = [];
  let examined = 0;
  for (;;) {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lower AND :upper',
        FilterExpression: `#status = :failed AND attribute_not_exists(redelivery_of) AND ${REDELIVERABLE}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pk': pk,
          ':lower': lower,
          ':upper': upper,
          ':failed': 'FAILED',
          ':pending': 'PENDING',
          ':mark_expired': window.markExpiredBefore,
        },
        ExclusiveStartKey: startKey,
        // Counts the items read, before the filter: what bounds the work.
        Limit: window.examine - examined,
        ConsistentRead: true,
      }),
    );
    examined += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      if (deliveries.length === window.limit) {
        // More matched than one call takes: continue just after the last one taken.
        const last = deliveries.at(-1) as Delivery;
        return { deliveries, nextToken: encodeNextToken(deliveryKey(accountId, webhookId, last.deliveryId)) };
      }
      deliveries.push(deliveryOf(item));
    }
    startKey = page.LastEvaluatedKey;
    if (!startKey) return { deliveries };
    if (examined >= window.examine || deliveries.length === window.limit) {
      return { deliveries, nextToken: encodeNextToken(startKey) };
    }
  }
}

/** A window token must point into the same partition and window, or the query would fail (a 500). */
function decodeWindowToken(token: string | undefined, pk: string, lower: string, upper: string) {
  const invalid = () => new ValidationError('next_token: is not a token this window returned');
  let key: { pk: string; sk: string } | undefined;
  try {
    key = decodeNextToken(token, pk, ID_PREFIX);
  } catch {
    throw invalid();
  }
  if (key && (key.sk < lower || key.sk > upper)) throw invalid();
  return key;
}
