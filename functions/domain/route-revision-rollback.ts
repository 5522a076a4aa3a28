import { getObjectText, isMissingObject, putJsonObject } from '../data/bucket';
import { bucketKeys } from '../data/bucket-keys';
import { type Claim, releaseClaims } from '../data/claims';
import { deleteAll, type Item, putAll } from '../data/client';
import type { ImportRecord } from '../data/imports';
import { getRouteHeader, type RouteHeader, replaceRouteHeader } from '../data/routes';
import type { TableKey } from '../data/table-schema';
import { MAX_UPLOAD_BYTES } from '../shared/limits';
import { logger } from '../shared/observability';
import { REVISION_IMAGE_DAYS } from '../shared/resources';

/*
 * How a revision is undone (route-revision-apply.ts applies it): what it replaces is stored before it writes
 * a row, and any run of the revision that finds the route still locked by it puts that back.
 */

/**
 * What a revision replaces, stored before it writes a row: rolling back deletes the items it writes
 * (`writtenKeys`) and puts back `replacedItems`, frees the ids it claimed, and unlocks the header.
 */
export interface BeforeImage {
  /** The version of the header the revision locked: the image is of that run only. */
  lockedVersion: number;
  replacedItems: Item[];
  writtenKeys: TableKey[];
  addedClaims: Claim[];
}

export const keyOf = (item: Item): TableKey => ({ pk: item.pk, sk: item.sk });
export const keyText = (key: TableKey) => `${key.pk}\u0000${key.sk}`;

/**
 * Binary attributes (a sealed recipient's, functions/domain/recipients.ts) as `{"$bytes": base64}` in the
 * image's JSON, and back: JSON.stringify would write a Uint8Array as an object of numbered fields.
 */
const BYTES = '$bytes';
const bytesToJson = (_key: string, value: unknown) =>
  value instanceof Uint8Array ? { [BYTES]: Buffer.from(value).toString('base64') } : value;
const bytesFromJson = (_key: string, value: unknown) =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[BYTES] === 'string'
    ? new Uint8Array(Buffer.from((value as Record<string, string>)[BYTES] as string, 'base64'))
    : value;

export const putBeforeImage = (record: ImportRecord, image: BeforeImage) =>
  putJsonObject(
    bucketKeys.revisionBeforeImage(record.accountId, record.txid),
    JSON.stringify(image, (key, value) => bytesToJson(key, value)),
  );

/**
 * Undoes what a run of the revision wrote while it held the route's lock, and unlocks the header as it was
 * (version included): nothing when the header is not locked by this revision (never locked, committed,
 * or rolled back already). Idempotent. No image means no row was written (it is written first, and S3 reads
 * are consistent) while the image cannot have expired; later it may have, and rows may be written:
 * 'image_lost', and the header stays locked, since unlocking it would call a half-written route whole.
 */
export async function rollBack(record: ImportRecord): Promise<'rolled_back' | 'image_lost'> {
  const header = await getRouteHeader(record.accountId, record.routeId as string);
  if (!header || header.revisionTxid !== record.txid) return 'rolled_back';
  const image = await beforeImageOf(record);
  if (!image && Date.now() >= record.createdAt + REVISION_IMAGE_DAYS * DAY_MS) {
    logger.error('revision before image lost: route left locked', {
      txid: record.txid,
      route_id: record.routeId,
    });
    return 'image_lost';
  }
  if (image?.lockedVersion === header.version) {
    const written = new Set(image.replacedItems.map((item) => keyText(keyOf(item))));
    await deleteAll(image.writtenKeys.filter((key) => !written.has(keyText(key))));
    await putAll(image.replacedItems);
    await releaseClaims(record.accountId, image.addedClaims, header.importTxid);
  }
  await unlock(header);
  logger.warn('revision rolled back', { txid: record.txid, route_id: record.routeId });
  return 'rolled_back';
}

const DAY_MS = 24 * 3600 * 1000;

async function beforeImageOf(record: ImportRecord): Promise<BeforeImage | undefined> {
  try {
    const text = await getObjectText(
      bucketKeys.revisionBeforeImage(record.accountId, record.txid),
      MAX_BEFORE_IMAGE_BYTES,
    );
    return JSON.parse(text, bytesFromJson) as BeforeImage;
  } catch (error) {
    if (isMissingObject(error)) return undefined; // no row was written
    throw error;
  }
}

/** A before image holds at most a whole route's rows (a 100 MB upload's, as items): far less than this. */
const MAX_BEFORE_IMAGE_BYTES = 4 * MAX_UPLOAD_BYTES;

/** The header as it was before `locked` locked it: same fields, its version back. */
export async function unlock(locked: RouteHeader): Promise<void> {
  const restored: RouteHeader = { ...locked, revisionTxid: undefined, version: locked.version - 1 };
  if (!(await replaceRouteHeader(restored, locked.version)))
    throw new Error('the locked route changed under its revision');
}
