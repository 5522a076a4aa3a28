import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailedAt, db, putAll, queryPrefixItems, tableName } from './client';
import { codec } from './codec';
import { getRecord } from './item-ops';
import type { TableKey } from './table-schema';

export type ImportStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface ImportRecord {
  accountId: string;
  dcId: string;
  txid: string;
  /** Known from the start for a POSTed route; for an upload, once its body has been read. */
  routeId?: string;
  status: ImportStatus;
  error?: { code: number; message: string };
  /** Where the accepted body waits in the bucket (claim-check). */
  payloadKey: string;
  createdAt: number;
  finishedAt?: number;
  /**
   * Still pending then, the import has failed (3016) and its ids are released; no run of the worker starts
   * that could end after it (epoch ms).
   */
  deadline: number;
  /** Present for an import whose body the client uploads to the bucket itself. */
  upload?: ImportUpload;
  /**
   * The route's tracking key, made when the import was accepted, so that every run of the import writes the
   * same tracking links. Absent on imports accepted before tracking links (their routes get none).
   */
  trackingKey?: string;
  /** Present on a revision of an existing route (PUT .../revision): its worker revises the route `routeId`. */
  kind?: 'REVISION';
  /**
   * When a revision's change of the route committed (epoch ms); what follows it (ids freed, ETAs, the record
   * ended) is then only carried forward, never rolled back.
   */
  committedAt?: number;
}

export interface ImportUpload {
  /** When the upload link stops working (epoch ms). */
  linkExpiresAt: number;
  /** An object S3 did not receive by then ends the import failed (3015), and a later one is ignored. */
  arrivalDeadline: number;
  /** When S3 received the object the import reads (its event's `eventTime`). */
  receivedAt?: number;
}

/** Import records are kept for 30 days: clients poll them shortly after the import. */
const RETENTION_SECONDS = 30 * 86_400;

const CHANGES_PREFIX = 'CHANGES#';

export const importKeys = {
  record: (accountId: string, txid: string): TableKey => ({
    pk: `IMPORT#${accountId}/${txid}`,
    sk: 'IMPORT',
  }),
  /** Part `part` of a revision's changes, in its record's partition. */
  changes: (accountId: string, txid: string, part: number): TableKey => ({
    pk: `IMPORT#${accountId}/${txid}`,
    sk: `${CHANGES_PREFIX}${String(part).padStart(4, '0')}`,
  }),
};

const uploadCodec = codec<ImportUpload>({ linkExpiresAt: {}, arrivalDeadline: {}, receivedAt: {} });

const importCodec = codec<ImportRecord>({
  accountId: {},
  dcId: {},
  txid: {},
  routeId: {},
  status: {},
  error: {},
  payloadKey: {},
  createdAt: {},
  finishedAt: {},
  deadline: {},
  /** `upload_link_expires_at`, `upload_arrival_deadline`, `upload_received_at`. */
  upload: { flat: { prefix: 'upload_', codec: uploadCodec } },
  trackingKey: {},
  kind: {},
  committedAt: {},
});

/** The item of an import accepted now: pending, whatever status `record` says. */
export const pendingImportItem = (record: ImportRecord) => ({
  ...importKeys.record(record.accountId, record.txid),
  entity: 'IMPORT',
  ...importCodec.toItem({ ...record, status: 'PENDING' }),
  expires_at: Math.floor(record.createdAt / 1000) + RETENTION_SECONDS,
});

/** Stores the import as pending; refused when the txid has a record. */
export async function putPendingImport(record: ImportRecord): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: pendingImportItem(record),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export const getImport = (accountId: string, txid: string): Promise<ImportRecord | undefined> =>
  getRecord(importKeys.record(accountId, txid), importCodec.fromItem);

/**
 * Records that S3 received the upload's object `at` (epoch ms), unless the import is no longer pending or the
 * object came after the arrival deadline (then it is ignored). True when the import should run; a repeated
 * call for the same arrival (SQS delivers at least once) is true again.
 */
export async function markUploadReceived(accountId: string, txid: string, at: number): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importKeys.record(accountId, txid),
        UpdateExpression: 'SET upload_received_at = if_not_exists(upload_received_at, :at)',
        ConditionExpression:
          '#status = :pending AND (attribute_exists(upload_received_at) OR upload_arrival_deadline >= :at)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'PENDING', ':at': at },
      }),
    );
    return true;
  } catch (error) {
    if (conditionFailedAt(error, 0)) return false;
    throw error;
  }
}

/** Transaction item recording that a pending revision's change of the route committed, once. */
export function markRevisionCommittedItem(accountId: string, txid: string, at: number) {
  return {
    Update: {
      TableName: tableName(),
      Key: importKeys.record(accountId, txid),
      UpdateExpression: 'SET committed_at = :at',
      ConditionExpression: '#status = :pending AND attribute_not_exists(committed_at)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pending': 'PENDING', ':at': at },
    },
  };
}

/**
 * UTF-16 code units of the changes JSON per item: at most 3 UTF-8 bytes each, so a part stays well under
 * DynamoDB's 400 KB item (a 2,000-waypoint revision's changes can be ~700 KB: a few parts).
 */
const CHANGES_PART_LENGTH = 100_000;

/** Cuts `text` into parts of at most `length` code units, never inside a surrogate pair. */
function partsOf(text: string, length: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + length, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

/** Stores a revision's changes (JSON) beside its record, in parts; kept as long as the record. */
export async function putImportChanges(
  accountId: string,
  txid: string,
  changesJson: string,
  createdAt: number,
): Promise<void> {
  await putAll(
    partsOf(changesJson, CHANGES_PART_LENGTH).map((text, part) => ({
      ...importKeys.changes(accountId, txid, part),
      entity: 'IMPORT_CHANGES',
      text,
      expires_at: Math.floor(createdAt / 1000) + RETENTION_SECONDS,
    })),
  );
}

/** A revision's changes (JSON) as stored with putImportChanges; undefined when none were stored. */
export async function getImportChanges(accountId: string, txid: string): Promise<string | undefined> {
  const { items } = await queryPrefixItems(importKeys.record(accountId, txid).pk, CHANGES_PREFIX);
  return items.length === 0 ? undefined : items.map((item) => item.text as string).join('');
}
