import { type Dc, getDc } from '../data/accounts';
import { isMissingObject, putJsonObject } from '../data/bucket';
import { bucketKeys } from '../data/bucket-keys';
import { ClaimConflict, findHeldClaims, releaseClaims, takeClaims } from '../data/claims';
import { deleteAll, type Item, putAll } from '../data/client';
import { getDriver } from '../data/drivers';
import { endRouteImport, type ImportEnding } from '../data/import-endings';
import {
  getImport,
  type ImportRecord,
  type ImportUpload,
  importKeys,
  markUploadReceived,
  putPendingImport,
} from '../data/imports';
import { routeEtasItem } from '../data/route-etas';
import { listRouteRows, routeRowItems, type StoredRecipient, type WaypointRow } from '../data/route-rows';
import { interleavedByPartition, rowShardsOf, splitRouteRows } from '../data/route-shards';
import type { RouteHeader } from '../data/routes';
import { trackingLookupItems, trackingLookupKeys } from '../data/tracking-links';
import { countWorkerAttempt } from '../data/worker-attempts';
import type { ImportMessage, UploadArrival } from '../models/channels';
import * as channels from '../models/channels';
import type { EventOf } from '../models/event-catalog';
import type { ImportedRoute } from '../models/import-model';
import { newTrackingKey } from '../models/tracking-links';
import { config } from '../shared/config';
import { randomId } from '../shared/crypto';
import { ApiError, ConflictError } from '../shared/errors';
import { logger } from '../shared/observability';
import { send } from '../shared/queues';
import { quote } from '../shared/quote';
import { IMPORT_UPLOADS_PREFIX } from '../shared/resources';
import { localDateOf } from '../shared/time';
import { readImportBody, rejectRepeatedIds, takenError } from './import-bodies';
import { scheduleDeadlineCheck } from './import-deadlines';
import { sealRecipients } from './recipients';
import { storedWaypointsOf } from './route-diff';
import { plannedEtas } from './route-etas';
import { claimsOf } from './route-ids';

export async function requireDriverOfDc(
  accountId: string,
  dcId: string,
  driverId: string | undefined,
): Promise<void> {
  if (driverId !== undefined && !(await getDriver(accountId, dcId, driverId))) {
    throw driverNotInDc(dcId, driverId);
  }
}

function driverNotInDc(dcId: string, driverId: string | undefined): ConflictError {
  return new ConflictError(
    'DRIVER_NOT_IN_DC',
    `route.driver_id: ${quote(driverId ?? '')} is not a driver of DC ${quote(dcId)}`,
  );
}

/**
 * Accepts a route import:
 * 1. rejects ids repeated inside the body (3006/3008/3009) and a driver outside the DC (3010);
 * 2. rejects ids the account already uses (3005/3006/3008/3009);
 * 3. stores the body in the bucket and queues the check of its deadline (IMPORT_DEADLINE_SECONDS from now),
 *    then records the import as PENDING and queues it: no pending import is without its deadline check.
 * The worker claims the ids for real; this check only spares clients an asynchronous failure.
 */
export async function acceptImport(accountId: string, dcId: string, route: ImportedRoute): Promise<string> {
  rejectRepeatedIds(route);
  await requireDriverOfDc(accountId, dcId, route.driver_id);
  const [taken] = await findHeldClaims(accountId, claimsOf(route));
  if (taken) throw takenError(taken);

  const txid = randomId('imp_');
  const message: ImportMessage = { account_id: accountId, dc_id: dcId, txid };
  const payloadKey = bucketKeys.importPayload(accountId, txid);
  const now = Date.now();
  const deadline = now + config().importDeadlineSeconds * 1000;
  await Promise.all([
    putJsonObject(payloadKey, JSON.stringify({ route })),
    scheduleDeadlineCheck(message, deadline),
  ]);
  await putPendingImport({
    accountId,
    dcId,
    txid,
    routeId: route.id,
    status: 'PENDING',
    payloadKey,
    trackingKey: newTrackingKey(),
    createdAt: now,
    deadline,
  });
  try {
    await send(channels.imports, message);
  } catch (error) {
    await finishImport(
      { accountId, dcId, txid, routeId: route.id },
      { failure: internalFailure('the import could not be queued; send it again') },
    );
    throw error;
  }
  return txid;
}

const UPLOAD_KEY = new RegExp(`^${IMPORT_UPLOADS_PREFIX}([^/]+)/(imp_[^/]+)\\.json$`);

/** The pending upload an object's key names, if any. */
async function pendingUploadOf(key: string): Promise<ImportRecord | undefined> {
  const [, accountId, txid] = UPLOAD_KEY.exec(key) ?? [];
  if (!accountId || !txid) return undefined;
  const record = await getImport(accountId, txid);
  return record?.status === 'PENDING' && record.upload && record.payloadKey === key ? record : undefined;
}

/**
 * The import an uploaded object starts: undefined for a key that is no upload, an import no longer pending,
 * or an object S3 received after the upload's arrival deadline, which ends the import failed (3015) unless an
 * earlier object arrived in time. The deadline holds for when S3 received the object, not for when the worker
 * gets to its message: a busy imports queue fails no upload made in time.
 */
export async function arrivedUpload(arrival: UploadArrival): Promise<ImportMessage | undefined> {
  const record = await pendingUploadOf(arrival.key);
  if (!record?.upload) return undefined;
  const { accountId, txid } = record;
  if (await markUploadReceived(accountId, txid, arrival.arrivedAt))
    return { account_id: accountId, dc_id: record.dcId, txid };
  if (record.upload.receivedAt === undefined && arrival.arrivedAt > record.upload.arrivalDeadline)
    await finishImport(record, { failure: uploadExpired(record.upload) });
  return undefined;
}

function uploadExpired(upload: ImportUpload): ApiError {
  const expiredAt = new Date(upload.linkExpiresAt).toISOString();
  return new ApiError(
    'UPLOAD_EXPIRED',
    `no route body was uploaded before the upload link expired at ${expiredAt}`,
  );
}

/** Runs of the import worker per import (counted on its record); the last ends it FAILED (1000). */
export const IMPORT_ATTEMPTS = channels.imports.workerAttempts;

export type ImportOutcome = 'SUCCEEDED' | 'FAILED' | 'ALREADY_FINISHED';

/**
 * How a run draws the PINs of the stops that require one (./stop-pins.ts importedPinItems), given by the import
 * worker: the one import function that may seal codes. Imported here, the KMS client would be bundled into
 * every function that shares this module (the import POST, its status, the deadline checks).
 */
export interface ImportPins {
  drawn: (header: RouteHeader, waypoints: readonly WaypointRow[]) => Promise<Item[]>;
}

/**
 * Runs one queued import while it is pending (`record`, read by pendingImportRecord); safe to run twice for the
 * same message. `runEndsBy` is when Lambda stops this run at the latest (epoch ms): a run that could pass the
 * import's deadline is not started.
 * 1. counts the run as one of the import's attempts (a run of an import already ended meanwhile stops);
 * 2. reads the body from the bucket (at most 100 MB) and checks it as the POST does (an upload's first check);
 * 3. claims every id for the txid (conditional writes; a retry of the same txid re-takes its own claims);
 * 4. writes waypoints, invoices and items in parallel batches (invisible until the header exists), with the
 *    PINs of the stops that require one (`pins`);
 * 5. writes the header, SUCCEEDED and the ROUTE_CREATED event in one transaction.
 * A refused body, a taken id or a driver gone from the DC fails the import with its code, after deleting what it wrote
 * and releasing its claims; so does any other error on the worker's last attempt (1000; its runs are counted on
 * the import's record, not by SQS's receive count, which throttled receives raise too), and a run too late for
 * the deadline (3016). Earlier, other errors are rethrown for SQS to retry the same txid; a run after the last
 * (the last one timed out) fails it at once. A run that finds the import ended by something else meanwhile
 * (its deadline) takes back what it wrote.
 */
export async function runImport(
  record: ImportRecord,
  runEndsBy: number,
  pins: ImportPins,
): Promise<ImportOutcome> {
  const attempt = await countWorkerAttempt(importKeys.record(record.accountId, record.txid));
  if (attempt === undefined) return 'ALREADY_FINISHED';
  const lastAttempt = attempt >= IMPORT_ATTEMPTS;

  let route: ImportedRoute | undefined;
  let imported = record;
  try {
    route = await readImportBody(record);
    imported = { ...record, routeId: route.id };
    // The body is read first even then: the failure releases the claims an earlier run took.
    if (attempt > IMPORT_ATTEMPTS)
      throw new Error(`the import's last attempt (${IMPORT_ATTEMPTS}) did not finish`);
    if (runEndsBy > record.deadline) throw abandoned(record);
    // The route's id alone, first: of two imports of the same route, the one that takes it goes on and the
    // other stops holding nothing. Taken with the others in parallel batches, each could take some ids the
    // other needs, and both would fail.
    const claims = claimsOf(route);
    await takeClaims(record.accountId, claims.slice(0, 1), record.txid, route.id);
    await takeClaims(record.accountId, claims.slice(1), record.txid, route.id);
    await requireDriverOfDc(record.accountId, record.dcId, route.driver_id);
    const dc = await getDc(record.accountId, record.dcId);
    if (!dc) throw new Error(`DC ${record.dcId} is gone`);
    const recipients = await sealRecipients(record.accountId, route, record.trackingKey);
    const { header, rows, waypoints } = routeRecords(imported, route, dc, recipients);
    // The PINs of the stops that require one: drawn anew by each run, before the header shows the route.
    const pinItems = await pins.drawn(header, waypoints);
    // Every shard at once: written one partition after the other, each would take its turn at AWS's limit.
    await putAll(interleavedByPartition([...rows, ...pinItems]));
    const outcome = await finishImport(imported, { header });
    if (
      outcome === 'ALREADY_FINISHED' &&
      (await getImport(record.accountId, record.txid))?.status === 'FAILED'
    )
      await discardImport(imported, route);
    return outcome;
  } catch (error) {
    const failure = failureOfRun(error, lastAttempt, 'the import failed; send it again');
    // A passing failure keeps its claims and rows: SQS retries the same txid, which re-takes and rewrites them.
    if (!failure) throw error;
    if (failure.unexpected) logger.error('import failed on its last attempt', { error, txid: record.txid });
    await discardImport(imported, route);
    return finishImport(imported, { failure: failure.error });
  }
}

/**
 * What a run of the import worker (an import or a revision) that threw `error` ends with: the id's code for a
 * claim conflict, the error itself when it carries a code, `unexpectedMessage` (1000) for anything else on
 * the last attempt (`unexpected`: worth a log line); undefined when SQS should retry the same txid.
 */
export function failureOfRun(
  error: unknown,
  lastAttempt: boolean,
  unexpectedMessage: string,
): { error: ApiError; unexpected: boolean } | undefined {
  if (error instanceof ClaimConflict) return { error: takenError(error.claim), unexpected: false };
  if (error instanceof ApiError) return { error, unexpected: false };
  return lastAttempt ? { error: internalFailure(unexpectedMessage), unexpected: true } : undefined;
}

// ---- Imports that will not run: dead-lettered, overdue, or an upload that never came ----

/** Fails an upload that never came by its arrival deadline (3015), for import-deadline-check.ts. */
export const failExpiredUpload = (record: ImportRecord, upload: ImportUpload) =>
  finishImport(record, { failure: uploadExpired(upload) });

/** Abandons an import still pending at its deadline (3016), for import-deadline-check.ts. */
export const abandonOverdueImport = (record: ImportRecord) => abandonImport(record, abandoned(record));

/**
 * Ends the import of a message the imports queue gave up (its DLQ): its worker failed on every delivery, or
 * never ran (every receive was spent while it was throttled). An import already ended is left as it is.
 */
export const abandonDeadLetteredImport = (message: ImportMessage): Promise<ImportOutcome> =>
  whilePending(message, (record) => abandonImport(record, abandoned('dead-lettered')));

/**
 * The record of the import or revision a queued message names while it is pending, else undefined (SQS delivers
 * at least once). A record is written before its message is sent: a message without one is an error.
 */
export async function pendingImportRecord(message: ImportMessage): Promise<ImportRecord | undefined> {
  const record = await getImport(message.account_id, message.txid);
  if (!record) throw new Error(`${message.revision ? 'revision' : 'import'} ${message.txid} has no record`);
  return record.status === 'PENDING' ? record : undefined;
}

/**
 * Runs `end` on the import or revision `message` names while it is pending; else 'ALREADY_FINISHED', a message
 * without a record too (unlike pendingImportRecord): the dead-letter consumer that calls it would otherwise keep
 * the message in its queue, paging again at every receive.
 */
export async function whilePending<O>(
  message: ImportMessage,
  end: (record: ImportRecord) => Promise<O>,
): Promise<O | 'ALREADY_FINISHED'> {
  const record = await getImport(message.account_id, message.txid);
  return record?.status === 'PENDING' ? end(record) : 'ALREADY_FINISHED';
}

/**
 * IMPORT_ABANDONED (3016) for an import or a revision (`what`) that will not run, dead-lettered or still pending
 * at its deadline: why, then what became of it (`after`), and that it may be sent again.
 */
export function abandonedError(
  what: 'import' | 'revision',
  cause: 'dead-lettered' | Pick<ImportRecord, 'deadline'>,
  after: string,
): ApiError {
  const why =
    cause === 'dead-lettered'
      ? `the ${what} could not be run: its worker failed on every delivery`
      : `the ${what} was still pending at its deadline ${new Date(cause.deadline).toISOString()}`;
  return new ApiError('IMPORT_ABANDONED', `${why}; ${after}, send it again`);
}

const abandoned = (cause: Parameters<typeof abandonedError>[1]) =>
  abandonedError('import', cause, 'nothing of it was kept');

/** The import a dead-lettered upload's object names (undefined for a key that names no pending upload). */
export async function deadLetteredUpload(arrival: UploadArrival): Promise<ImportMessage | undefined> {
  const record = await pendingUploadOf(arrival.key);
  return record && { account_id: record.accountId, dc_id: record.dcId, txid: record.txid };
}

/**
 * Ends an import no worker will run again: deletes what earlier runs wrote and releases the claims they took
 * (the body lists them: a run claims only once it has read it), then fails it.
 */
async function abandonImport(record: ImportRecord, failure: ApiError): Promise<ImportOutcome> {
  const route = await claimedRouteOf(record);
  const abandoned = route ? { ...record, routeId: route.id } : record;
  await discardImport(abandoned, route);
  logger.warn('import abandoned', { txid: record.txid, reason: failure.message });
  return finishImport(abandoned, { failure });
}

/** The route whose ids a run of the import may have claimed: none when its body was refused or never came. */
async function claimedRouteOf(record: ImportRecord): Promise<ImportedRoute | undefined> {
  try {
    return await readImportBody(record);
  } catch (error) {
    if (error instanceof ApiError) return undefined; // the worker refuses such a body before claiming
    if (!isMissingObject(error)) throw error;
    // An upload that never came; a POSTed body outlived by its import (the bucket keeps it a day).
    if (!record.upload)
      logger.error(
        "the body of an abandoned import is gone: the ids it claimed stay claimed, its rows outside the route's partition stay",
        {
          txid: record.txid,
        },
      );
    return undefined;
  }
}

export function internalFailure(message: string): ApiError {
  return new ApiError('INTERNAL', message);
}

/**
 * Deletes the rows this import wrote and releases the claims it holds (those of `route`, its body: none
 * without one). The rows are only ours while we hold the route id: when the route id itself was taken, the
 * partitions belong to the other route. The body places the rows in their shards as the import did; without
 * it only the route's partition is known. The tracking links are ours whoever holds the route id: their keys
 * come from this import's tracking key.
 */
async function discardImport(record: ImportRecord, route: ImportedRoute | undefined): Promise<void> {
  const claims = route ? claimsOf(route) : [];
  const { routeId } = record;
  if (routeId === undefined) return; // an upload whose body was refused: nothing written, nothing claimed
  if (record.trackingKey !== undefined) {
    // An import's waypoints take sequences in the body's order; their tokens derive from their ids alone.
    const waypoints = (route?.waypoints ?? []).map(({ id }, sequence) => ({ id, sequence }));
    await deleteAll(trackingLookupKeys({ trackingKey: record.trackingKey }, waypoints));
  }
  const [routeClaim] = await findHeldClaims(record.accountId, [{ kind: 'ROUTE', id: routeId }]);
  if (routeClaim?.txid === record.txid) {
    const shards = route
      ? importedRouteRows(record.accountId, route).shards
      : rowShardsOf({ accountId: record.accountId, routeId });
    await deleteAll((await listRouteRows(shards)).map((row) => row.key));
  }
  await releaseClaims(record.accountId, claims, record.txid);
}

/** Ends the import once: SUCCEEDED with the header and ROUTE_CREATED, or FAILED with ROUTE_IMPORT_FAILED. */
async function finishImport(
  record: Pick<ImportRecord, 'accountId' | 'dcId' | 'txid' | 'routeId'>,
  outcome: { header: RouteHeader } | { failure: ApiError },
): Promise<ImportOutcome> {
  const now = Date.now();
  const ending: ImportEnding =
    'header' in outcome
      ? { route: outcome.header }
      : { error: { code: outcome.failure.code, message: outcome.failure.message } };
  const payload: EventOf<'ROUTE_CREATED'> | EventOf<'ROUTE_IMPORT_FAILED'> =
    'route' in ending
      ? {
          type: 'ROUTE_CREATED',
          details: {
            route: {
              id: ending.route.routeId,
              name: ending.route.name,
              start_time: ending.route.startTime,
              driver_id: ending.route.assignedDriverId ?? null,
              waypoint_count: ending.route.waypointIds.length,
              is_active: ending.route.isActive,
            },
          },
        }
      : { type: 'ROUTE_IMPORT_FAILED', details: { txid: record.txid, error: ending.error } };
  const ended = await endRouteImport(record, now, ending, {
    accountId: record.accountId,
    dcId: record.dcId,
    routeId: record.routeId,
    ...payload,
    occurredAt: now,
  });
  // Another delivery of the same message finished first.
  if (ended === 'already_ended') return 'ALREADY_FINISHED';
  // The route's driver was deleted since the import checked it.
  if (ended === 'driver_gone' && 'route' in ending)
    throw driverNotInDc(record.dcId, ending.route.assignedDriverId);
  return 'route' in ending ? 'SUCCEEDED' : 'FAILED';
}

/**
 * The waypoints of an imported route, and its rows in their shards: a function of the body alone, so that a
 * retry of the import and the cleanup of a failed one place every row as the import did.
 */
export function importedRouteRows(
  accountId: string,
  route: ImportedRoute,
  recipients: ReadonlyMap<string, StoredRecipient> = new Map(),
) {
  const waypoints = storedWaypointsOf(route, undefined, recipients);
  const rows = routeRowItems(
    accountId,
    route.id,
    waypoints.map((stop) => stop.waypoint),
    waypoints.map((stop) => stop.invoices),
  );
  return { waypoints: waypoints.map((stop) => stop.waypoint), ...splitRouteRows(accountId, route.id, rows) };
}

/**
 * The header fields a route's body sets, on import and on each revision alike; the waypoints take the DC's
 * delivery-rule defaults as they are now.
 */
export const headerFieldsOfBody = (route: ImportedRoute, dc: Dc) => ({
  name: route.name ?? route.id,
  startTime: route.start_time,
  localDate: localDateOf(route.start_time, dc.timeZone),
  assignedDriverId: route.driver_id,
  vehicleId: route.vehicle?.id,
  startWarehouse: route.start_warehouse,
  endWarehouse: route.end_warehouse,
  defaultRequirements: dc.deliveryRequirements,
});

/** The header and rows of an imported route, as stored. */
function routeRecords(
  record: ImportRecord,
  route: ImportedRoute,
  dc: Dc,
  recipients: ReadonlyMap<string, StoredRecipient>,
) {
  const { waypoints, rows, shards } = importedRouteRows(record.accountId, route, recipients);
  const header: RouteHeader = {
    accountId: record.accountId,
    dcId: record.dcId,
    routeId: route.id,
    ...headerFieldsOfBody(route, dc),
    waypointIds: waypoints.map((waypoint) => waypoint.id),
    rowShardStarts: shards.starts.length > 0 ? [...shards.starts] : undefined,
    isActive: route.activate_after_successful_import,
    isFinalized: false,
    version: 1,
    importTxid: record.txid,
    trackingKey: record.trackingKey,
    createdAt: Date.now(),
  };
  const etas = routeEtasItem(record.accountId, route.id, plannedEtas(header, waypoints, dc.etaSpeedKmh));
  const { trackingKey } = header;
  const trackingLinks = trackingKey
    ? trackingLookupItems({ ...header, trackingKey }, header.waypointIds)
    : [];
  return {
    header,
    rows: [...trackingLinks, ...rows, etas],
    waypoints,
  };
}
