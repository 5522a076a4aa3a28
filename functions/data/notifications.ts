import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryItems, tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { conditionHeld, getRecord, putRecordItem } from './item-ops';
import { type SequencedEvent, sequencedEventItems } from './route-event-sequences';
import { routeKeys } from './routes';
import { TABLE_SCHEMA, type TableKey } from './table-schema';

/**
 * Customer messages (docs/api.md, Customer notifications): one record per message, in its route's partition
 * beside the waypoint it is about (so the route's deletion removes them with its rows), and per waypoint a
 * small state item that throttles LATE messages. A record's key derives from what caused it (the event, the
 * trigger, the channel), so a redelivered event finds its record and sends nothing again.
 */

export type NotificationStatus = 'QUEUED' | 'SENT' | 'DELIVERED' | 'BOUNCED' | 'FAILED' | 'SUPPRESSED';

export interface NotificationRecord {
  accountId: string;
  routeId: string;
  waypointId: string;
  waypointSequence: number;
  /** Derived from the event, trigger and channel (domain/notifications.ts). */
  notificationId: string;
  eventId: string;
  trigger: string;
  channel: string;
  status: NotificationStatus;
  /** Why it ended FAILED, BOUNCED or SUPPRESSED (`quiet_hours`, `opted_out`, the provider's words). */
  statusReason?: string;
  locale: string;
  /** The masked address it went to, as the waypoint reads show it. */
  to: string;
  /** The ETA the message told, where it told one. */
  eta?: number;
  /** SMS only: the segments the text takes. */
  segments?: number;
  /** The provider's id of the message (SES MessageId, End User Messaging MessageId). */
  providerMessageId?: string;
  createdAt: number;
  sentAt?: number;
  /** When it was delivered, bounced, failed or suppressed. */
  endedAt?: number;
}

const PREFIX = 'NOTIFICATION#';
const seq = (n: number) => String(n).padStart(5, '0');

const recordKey = (accountId: string, routeId: string, sequence: number, notificationId: string): TableKey =>
  routeKeys.row(accountId, routeId, `${PREFIX}${seq(sequence)}#${notificationId}`);
/**
 * The record's second key (gsi1): its account and id, which the tags of an email and the context of an SMS
 * carry back in delivery events (domain/message-outcomes.ts). An outcome naming another account finds nothing.
 */
const lookupKey = (accountId: string, notificationId: string) => ({
  gsi1pk: `NOTIFICATION#${accountId}#${notificationId}`,
  gsi1sk: 'NOTIFICATION',
});
const stateKey = (accountId: string, routeId: string, sequence: number): TableKey =>
  routeKeys.row(accountId, routeId, `NOTIFY_STATE#${seq(sequence)}`);

const recordCodec = codec<NotificationRecord>({
  accountId: {},
  routeId: {},
  waypointId: {},
  waypointSequence: {},
  notificationId: {},
  eventId: {},
  trigger: {},
  channel: {},
  status: {},
  statusReason: {},
  locale: {},
  to: { attr: 'to_masked' },
  eta: {},
  segments: {},
  providerMessageId: {},
  createdAt: {},
  sentAt: {},
  endedAt: {},
});

/** What the waypoint's messages so far left: the ETA the last one told, when the last LATE one went. */
export interface NotifyState {
  lastEta?: number;
  lastLateAt?: number;
}

const stateCodec = codec<NotifyState>({ lastEta: {}, lastLateAt: {} });

export const getNotifyState = (accountId: string, routeId: string, sequence: number) =>
  getRecord(stateKey(accountId, routeId, sequence), stateCodec.fromItem);

/**
 * Stores a new message's record, on condition that none of its id exists ('duplicate': a redelivered event),
 * and keeps the ETA it tells (`eta`) on the waypoint's state. With `throttleLateSince` (a LATE message), also
 * takes the waypoint's LATE turn: refused ('throttled') when its last LATE message came after that time.
 */
export async function insertNotification(
  record: NotificationRecord,
  options: { eta?: number; throttleLateSince?: number } = {},
): Promise<'written' | 'duplicate' | 'throttled'> {
  const { eta, throttleLateSince } = options;
  const sets = [
    'entity = :entity',
    ...(eta === undefined ? [] : ['last_eta = :eta']),
    ...(throttleLateSince === undefined ? [] : ['last_late_at = :now']),
  ];
  return writeTransactionParts([
    {
      items: [
        putRecordItem({
          key: recordKey(record.accountId, record.routeId, record.waypointSequence, record.notificationId),
          entity: 'NOTIFICATION',
          codec: recordCodec,
          record,
          also: lookupKey(record.accountId, record.notificationId),
          ifNew: true,
        }),
      ],
      refusedAs: 'duplicate',
    },
    {
      items: [
        {
          Update: {
            TableName: tableName(),
            Key: stateKey(record.accountId, record.routeId, record.waypointSequence),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ...(throttleLateSince === undefined
              ? {}
              : { ConditionExpression: 'attribute_not_exists(last_late_at) OR last_late_at <= :since' }),
            ExpressionAttributeValues: {
              ':entity': 'NOTIFY_STATE',
              ...(eta === undefined ? {} : { ':eta': eta }),
              ...(throttleLateSince === undefined
                ? {}
                : { ':now': record.createdAt, ':since': throttleLateSince }),
            },
          },
        },
      ],
      refusedAs: 'throttled',
    },
  ]);
}

/** Sets the record's status (and its times and provider id), whatever it was. */
export async function updateNotification(
  record: Pick<NotificationRecord, 'accountId' | 'routeId' | 'waypointSequence' | 'notificationId'>,
  change: Partial<
    Pick<NotificationRecord, 'status' | 'statusReason' | 'providerMessageId' | 'sentAt' | 'endedAt'>
  >,
): Promise<void> {
  const fields = recordCodec.toItem(change as NotificationRecord);
  const names = Object.keys(fields).filter((name) => fields[name] !== undefined);
  if (names.length === 0) return;
  await writeTransactionParts([
    {
      items: [
        {
          Update: {
            TableName: tableName(),
            Key: recordKey(record.accountId, record.routeId, record.waypointSequence, record.notificationId),
            UpdateExpression: `SET ${names.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
            ExpressionAttributeValues: Object.fromEntries(
              names.map((name, index) => [`:v${index}`, fields[name]]),
            ),
          },
        },
      ],
    },
  ]);
}

/**
 * Takes over the sending of a message recorded QUEUED by a run that did not send it (it timed out or died
 * between the record and the provider's answer): true when the record is still QUEUED and its last claim
 * (its creation, or a claim of this kind) is older than `staleBefore`, and this run now holds it. A run that
 * is still sending holds a claim younger than that, so two runs never both take it.
 */
export async function reclaimQueuedNotification(
  record: Pick<NotificationRecord, 'accountId' | 'routeId' | 'waypointSequence' | 'notificationId'>,
  now: number,
  staleBefore: number,
): Promise<boolean> {
  return conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: recordKey(record.accountId, record.routeId, record.waypointSequence, record.notificationId),
        UpdateExpression: 'SET claimed_at = :now',
        ConditionExpression:
          '#status = :queued AND ((attribute_not_exists(claimed_at) AND created_at < :stale) OR claimed_at < :stale)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':now': now, ':stale': staleBefore, ':queued': 'QUEUED' },
      }),
    ),
  );
}

/**
 * Marks the message SENT with the provider's id, unless an outcome ended it already (SES or SMS may publish
 * one before the send's answer is handled): then only the time and id are kept.
 */
export async function markNotificationSent(
  record: Pick<NotificationRecord, 'accountId' | 'routeId' | 'waypointSequence' | 'notificationId'>,
  sentAt: number,
  providerMessageId: string,
): Promise<void> {
  const key = recordKey(record.accountId, record.routeId, record.waypointSequence, record.notificationId);
  const values = { ':at': sentAt, ':id': providerMessageId };
  const updated = await conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #status = :sent, sent_at = :at, provider_message_id = :id',
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ...values, ':sent': 'SENT', ':queued': 'QUEUED' },
      }),
    ),
  );
  if (updated) return;
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET sent_at = :at, provider_message_id = :id',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: values,
    }),
  );
}

/** The waypoint's messages, oldest first. */
export async function listNotifications(
  accountId: string,
  routeId: string,
  sequence: number,
): Promise<NotificationRecord[]> {
  const key = routeKeys.row(accountId, routeId, `${PREFIX}${seq(sequence)}#`);
  const { items } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': key.pk, ':prefix': key.sk },
      ConsistentRead: true,
    },
    1000,
  );
  return items.map(recordCodec.fromItem).sort((a, b) => a.createdAt - b.createdAt);
}

/** The account's message `notificationId` (from gsi1, which projects every attribute); undefined when none is. */
export async function findNotification(
  accountId: string,
  notificationId: string,
): Promise<NotificationRecord | undefined> {
  const { gsi1 } = TABLE_SCHEMA.indexes;
  const { items } = await queryItems(
    {
      IndexName: 'gsi1',
      KeyConditionExpression: `${gsi1.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': lookupKey(accountId, notificationId).gsi1pk },
    },
    1,
  );
  return items[0] && recordCodec.fromItem(items[0]);
}

/** The statuses a message may come to from each: DELIVERED only from QUEUED or SENT; no final one goes back. */
const ENDS_FROM: Record<'DELIVERED' | 'BOUNCED' | 'FAILED' | 'SUPPRESSED', readonly NotificationStatus[]> = {
  DELIVERED: ['QUEUED', 'SENT'],
  // A receiving server may accept a message (DELIVERED) and bounce it after; a complaint comes after delivery.
  BOUNCED: ['QUEUED', 'SENT', 'DELIVERED'],
  FAILED: ['QUEUED', 'SENT', 'DELIVERED'],
  SUPPRESSED: ['QUEUED', 'SENT'],
};

/**
 * Ends the message with `status`, on condition that its status allows it (ENDS_FROM): 'stale' when it does not
 * (a late DELIVERED after a bounce, an outcome told twice) or the record is gone. `event` (NOTIFICATION_FAILED)
 * is written in the same transaction with the route's next sequence; 'event_raced' when another event of the
 * route took it first (read again and retry).
 */
export async function endNotification(
  record: Pick<NotificationRecord, 'accountId' | 'routeId' | 'waypointSequence' | 'notificationId'>,
  end: { status: keyof typeof ENDS_FROM; statusReason?: string; endedAt: number },
  event?: SequencedEvent,
): Promise<'ended' | 'stale' | 'event_raced'> {
  const allowed = ENDS_FROM[end.status];
  const outcome = await writeTransactionParts([
    {
      items: [
        {
          Update: {
            TableName: tableName(),
            Key: recordKey(record.accountId, record.routeId, record.waypointSequence, record.notificationId),
            UpdateExpression:
              end.statusReason === undefined
                ? 'SET #status = :status, ended_at = :at REMOVE status_reason'
                : 'SET #status = :status, ended_at = :at, status_reason = :reason',
            ConditionExpression: `attribute_exists(pk) AND #status IN (${allowed.map((_, i) => `:from${i}`).join(', ')})`,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':status': end.status,
              ':at': end.endedAt,
              ...(end.statusReason === undefined ? {} : { ':reason': end.statusReason }),
              ...Object.fromEntries(allowed.map((status, i) => [`:from${i}`, status])),
            },
          },
        },
      ],
      refusedAs: 'stale',
    },
    ...(event ? [{ items: await sequencedEventItems(event), refusedAs: 'event_raced' as const }] : []),
  ]);
  return outcome === 'written' ? 'ended' : outcome;
}
