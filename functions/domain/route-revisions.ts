import { type Dc, getDc } from '../data/accounts';
import { listAttempts } from '../data/attempts';
import { getObjectText, isMissingObject, putJsonObject } from '../data/bucket';
import { bucketKeys } from '../data/bucket-keys';
import { type Claim, releaseClaims, takeClaims } from '../data/claims';
import { deleteAll, type Item, putAll } from '../data/client';
import {
  endImport,
  getImport,
  getImportChanges,
  type ImportRecord,
  importKeys,
  putImportChanges,
  putPendingImport,
} from '../data/imports';
import { listInvoiceRows } from '../data/invoice-rows';
import { listWaypointRows, routeRowItems } from '../data/route-rows';
import { rowShardsOf } from '../data/route-shards';
import { getRouteHeader, nextWaypointSequenceOf, type RouteHeader, replaceRouteHeader } from '../data/routes';
import type { TableKey } from '../data/table-schema';
import { trackingLookupItemsAt } from '../data/tracking-links';
import { inRouteOrder, orderFields } from '../data/waypoint-order';
import { countWorkerAttempt } from '../data/worker-attempts';
import type { ImportMessage } from '../models/channels';
import * as channels from '../models/channels';
import type { EventDetails } from '../models/event-catalog';
import type { ImportedRoute } from '../models/import-model';
import { config } from '../shared/config';
import { randomId } from '../shared/crypto';
import { ApiError, ConflictError, ValidationError } from '../shared/errors';
import { MAX_UPLOAD_BYTES } from '../shared/limits';
import { logger } from '../shared/observability';
import { send } from '../shared/queues';
import { quote } from '../shared/quote';
import { REVISION_IMAGE_DAYS } from '../shared/resources';
import { localDateOf } from '../shared/time';
import { scheduleDeadlineCheck } from './import-deadlines';
import {
  changesNoRow,
  noChanges,
  planRevision,
  type RevisionPlan,
  type RouteChanges,
  type StoredWaypoint,
  sameAsJson,
} from './route-diff';
import { recomputeEtas } from './route-etas';
import {
  failureOfRun,
  IMPORT_ATTEMPTS,
  internalFailure,
  readImportBody,
  rejectRepeatedIds,
  requireDriverOfDc,
} from './route-import';
import { isDone, progressByWaypoint, progressOf } from './route-progress';
import { DriverGoneError, type RouteRef, requireRoute, writeHeader } from './routes';

// ---- Revisions: PUT .../revision, run by the import worker ----

/** How often a revision's write re-reads and retries after another writer took the route's next sequence. */
const MAX_REVISION_WRITE_ATTEMPTS = 5;

/** Most bytes of ids ROUTE_UPDATED carries (as JSON); more leaves its lists empty, marked truncated. */
const MAX_EVENT_CHANGE_BYTES = 96 * 1024;

/**
 * Accepts a revision of a route (the import model with the route's id), asynchronous like an import:
 * 1. refuses a route that does not exist (3003), a body of another route (1006 naming route.id), ids
 *    repeated inside it (3006/3008/3009), a route that is finished (3012) and a driver outside the DC (3010);
 * 2. stores the body in the bucket and queues the check of its deadline (IMPORT_DEADLINE_SECONDS from now, as
 *    an import's), then records the revision as PENDING (an import record of kind REVISION, answered by
 *    GET .../import-status/{txid}) and queues it on the imports channel: none stays pending for ever.
 * Everything else is checked by the worker, against the route as it is when the revision runs.
 */
export async function acceptRevision(ref: RouteRef, route: ImportedRoute): Promise<string> {
  const current = await requireRoute(ref);
  if (route.id !== ref.routeId)
    throw new ValidationError(
      `route.id: ${quote(route.id)} is not the route revised here (${quote(ref.routeId)}); a revision keeps the route's id`,
    );
  rejectRepeatedIds(route);
  if (current.isFinalized)
    throw new ConflictError('ROUTE_FINALIZED', `route ${quote(ref.routeId)} is already finished`);
  await requireDriverOfDc(ref.accountId, ref.dcId, route.driver_id);

  const txid = randomId('rev_');
  const payloadKey = bucketKeys.importPayload(ref.accountId, txid);
  const message: ImportMessage = { account_id: ref.accountId, dc_id: ref.dcId, txid, revision: true };
  const now = Date.now();
  const deadline = now + config().importDeadlineSeconds * 1000;
  await Promise.all([
    putJsonObject(payloadKey, JSON.stringify({ route })),
    scheduleDeadlineCheck(message, deadline),
  ]);
  const record: ImportRecord = {
    accountId: ref.accountId,
    dcId: ref.dcId,
    txid,
    routeId: ref.routeId,
    kind: 'REVISION',
    status: 'PENDING',
    payloadKey,
    createdAt: now,
    deadline,
  };
  await putPendingImport(record);
  try {
    await send(channels.imports, message);
  } catch (error) {
    await endRevision(record, internalFailure('the revision could not be queued; send it again'));
    throw error;
  }
  return txid;
}

/** What a run of a revision found and did (FAILED: refused or given up; the route is as it was). */
export type RevisionOutcome = 'SUCCEEDED' | 'FAILED' | 'ALREADY_FINISHED';

/**
 * Runs one queued revision; safe to run again for the same message (SQS delivers at least once, and a run
 * may stop anywhere). `runEndsBy` is when Lambda stops this run at the latest (epoch ms):
 * 1. a revision whose change committed is carried forward (ids freed, ETAs, SUCCEEDED); an earlier run's
 *    half-applied change is rolled back first (rollBack);
 * 2. a run that could pass the revision's deadline is not started: it ends FAILED (3016), as the deadline
 *    check would, so that no run is in progress when the check rolls the revision back;
 * 3. applies it (applyRevision): refusals end it FAILED with their code; so does any error on the worker's
 *    last attempt (1000), after the rollback. Earlier, other errors are rethrown for SQS to run it again.
 */
export async function runRevision(message: ImportMessage, runEndsBy: number): Promise<RevisionOutcome> {
  const record = await getImport(message.account_id, message.txid);
  if (!record) throw new Error(`revision ${message.txid} has no record`);
  if (record.status !== 'PENDING') return 'ALREADY_FINISHED';
  const attempt = await countWorkerAttempt(importKeys.record(record.accountId, record.txid));
  if (attempt === undefined) return 'ALREADY_FINISHED';
  if (record.committedAt !== undefined) return finishCommitted(record);
  try {
    if ((await rollBack(record)) === 'image_lost') return endRevision(record, imageLost(record));
    if (attempt > IMPORT_ATTEMPTS)
      throw new Error(`the revision's last attempt (${IMPORT_ATTEMPTS}) did not finish`);
    if (runEndsBy > record.deadline) throw overdue(record);
    return await applyRevision(record, await readImportBody(record));
  } catch (error) {
    const failure = failureOfRun(
      error,
      attempt >= IMPORT_ATTEMPTS,
      'the revision failed; the route is as it was; send it again',
    );
    if (!failure) throw error;
    if (failure.unexpected) logger.error('revision failed on its last attempt', { error, txid: record.txid });
    return rollBackAndEnd(record, failure.error);
  }
}

/** Ends a revision the imports queue gave up (its DLQ): its change is rolled back, or carried forward if in. */
export async function abandonDeadLetteredRevision(message: ImportMessage): Promise<RevisionOutcome> {
  const record = await getImport(message.account_id, message.txid);
  if (record?.status !== 'PENDING') return 'ALREADY_FINISHED';
  return abandonRevision(
    record,
    new ApiError(
      'IMPORT_ABANDONED',
      'the revision could not be run: its worker failed on every delivery; the route is as it was, send it again',
    ),
  );
}

/** Ends a revision still pending at its deadline (3016), for import-deadline-check.ts. */
export const abandonOverdueRevision = (record: ImportRecord) => abandonRevision(record, overdue(record));

async function abandonRevision(record: ImportRecord, error: ApiError): Promise<RevisionOutcome> {
  if (record.committedAt !== undefined) return finishCommitted(record);
  return rollBackAndEnd(record, error);
}

function overdue(record: ImportRecord): ApiError {
  const deadline = new Date(record.deadline).toISOString();
  return new ApiError(
    'IMPORT_ABANDONED',
    `the revision was still pending at its deadline ${deadline}; the route is as it was, send it again`,
  );
}

/** Rolls the revision back and ends it FAILED with `error`; with its before image lost, with 3103 instead. */
async function rollBackAndEnd(record: ImportRecord, error: ApiError): Promise<RevisionOutcome> {
  const rolledBack = await rollBack(record);
  return endRevision(record, rolledBack === 'image_lost' ? imageLost(record) : error);
}

function imageLost(record: ImportRecord): ApiError {
  return new ApiError(
    'REVISION_IMAGE_LOST',
    `the revision could not be rolled back: what it replaced was kept ${REVISION_IMAGE_DAYS} days and is gone; route ${quote(record.routeId ?? '')} may hold some of its rows and stays locked`,
  );
}

const refOf = (record: ImportRecord): RouteRef => ({
  accountId: record.accountId,
  dcId: record.dcId,
  routeId: record.routeId as string,
});

/**
 * What a revision replaces, stored before it writes a row: rolling back deletes the items it writes
 * (`writtenKeys`) and puts back `replacedItems`, frees the ids it claimed, and unlocks the header.
 */
interface BeforeImage {
  /** The version of the header the revision locked: the image is of that run only. */
  lockedVersion: number;
  replacedItems: Item[];
  writtenKeys: TableKey[];
  addedClaims: Claim[];
}

/**
 * Applies a revision to the route, all or nothing:
 * 1. locks the route: the header with the revision's txid (version + 1, on condition of the version read),
 *    so that no other change (an attempt, a cancellation, an assignment) lands while it applies (3102);
 * 2. reads the route's waypoints, invoices, items and attempts, and plans the change (planRevision),
 *    with the route's fields under their own endpoints' rules (a started route keeps its driver: 3011; a
 *    driver of the DC: 3010). A refusal unlocks the header as it was, version included;
 * 3. a revision that changes nothing unlocks it as it was and succeeds with empty changes;
 * 4. stores what it replaces in the bucket (BeforeImage), claims the added ids (3006/3008/3009 on a conflict),
 *    writes the rows (new waypoints after the last sequence, changed ones in place, removed ones deleted with
 *    their tracking links), and stores the changes beside the import record;
 * 5. commits: the header unlocked with its new fields and waypoints (version + 1 again, its drivers' route
 *    sets), ROUTE_UPDATED and the record's commit mark in one transaction; then finishCommitted.
 * Any error in 4 or 5 rolls back before it is thrown (and a run stopped there is rolled back by the next).
 */
async function applyRevision(record: ImportRecord, body: ImportedRoute): Promise<RevisionOutcome> {
  const ref = refOf(record);
  const route = await requireRoute(ref);
  if (route.isFinalized)
    throw new ConflictError('ROUTE_FINALIZED', `route ${quote(ref.routeId)} is already finished`);
  // Another revision being applied: SQS runs this one again once its visibility timeout ends.
  if (route.revisionTxid !== undefined) throw new Error(`route is being revised by ${route.revisionTxid}`);
  const locked: RouteHeader = { ...route, revisionTxid: record.txid, version: route.version + 1 };
  if (!(await replaceRouteHeader(locked, route.version)))
    throw new Error('the route changed while the revision locked it');
  try {
    const [waypoints, invoices, attempts, dc] = await Promise.all([
      listWaypointRows(ref.accountId, ref.routeId).then((page) => page.items),
      listInvoiceRows(route).then((page) => page.items),
      listAttempts(ref.accountId, ref.routeId),
      getDc(ref.accountId, ref.dcId),
    ]);
    if (!dc) throw new Error(`DC ${ref.dcId} is gone`);
    const invoicesOf = new Map<string, typeof invoices>();
    for (const invoice of invoices) {
      const ofWaypoint = invoicesOf.get(invoice.waypointId);
      if (ofWaypoint) ofWaypoint.push(invoice);
      else invoicesOf.set(invoice.waypointId, [invoice]);
    }
    const current = inRouteOrder(route, waypoints).map((waypoint) => ({
      waypoint,
      invoices: invoicesOf.get(waypoint.id) ?? [],
    }));
    const visited = new Set(attempts.map((attempt) => attempt.sequence));
    const progress = progressByWaypoint(attempts);
    const done = new Set(
      current.flatMap(({ waypoint }) =>
        isDone(progressOf(progress, waypoint).status) ? [waypoint.sequence] : [],
      ),
    );
    const plan = planRevision(current, body, visited, done, nextWaypointSequenceOf(route));
    const next = await revisedHeader(route, body, plan, dc);
    if (changesNoRow(plan) && !plan.orderChanged && headerFieldsSame(route, next)) {
      await unlock(locked);
      return endRevision(record, { changes: noChanges() });
    }
    await applyRows(record, route, locked, plan);
    const changesJson = JSON.stringify(plan.changes);
    await putImportChanges(ref.accountId, record.txid, changesJson, record.createdAt);
    const fits = Buffer.byteLength(changesJson) <= MAX_EVENT_CHANGE_BYTES;
    await commitRevision(record, locked, next, {
      version: next.version,
      changes: fits ? plan.changes : noChanges(),
      order_changed: plan.orderChanged,
      txid: record.txid,
      ...(fits ? {} : { changes_truncated: true as const }),
    });
  } catch (error) {
    await rollBack(record);
    throw error;
  }
  return finishCommitted({ ...record, committedAt: Date.now() });
}

/**
 * Commits a locked revision: the header unlocked with its new fields (and its drivers' route sets),
 * ROUTE_UPDATED with the route's next event sequence and the record's commit mark, in one transaction. An
 * event of the route written meanwhile (a location ping's ETAs) took the sequence read: read it again.
 */
async function commitRevision(
  record: ImportRecord,
  locked: RouteHeader,
  next: RouteHeader,
  details: EventDetails<'ROUTE_UPDATED'>,
): Promise<void> {
  const { accountId, dcId, routeId } = locked;
  for (let attempt = 1; attempt <= MAX_REVISION_WRITE_ATTEMPTS; attempt++) {
    const now = Date.now();
    const event = { accountId, dcId, routeId, type: 'ROUTE_UPDATED' as const, details, occurredAt: now };
    try {
      if (await writeHeader(next, locked, { event, committedRevision: { txid: record.txid, at: now } }))
        return;
    } catch (error) {
      if (error instanceof DriverGoneError) throw driverNotInDc(dcId, error.driverId);
      throw error;
    }
    const header = await getRouteHeader(accountId, routeId);
    if (header?.revisionTxid !== record.txid || header.version !== locked.version)
      throw new Error('the locked route changed under its revision');
  }
  throw new Error(`route '${routeId}' kept taking event sequences under its revision's commit`);
}

function driverNotInDc(dcId: string, driverId: string | undefined): ConflictError {
  return new ConflictError(
    'DRIVER_NOT_IN_DC',
    `route.driver_id: ${quote(driverId ?? '')} is not a driver of DC ${quote(dcId)}`,
  );
}

/**
 * The header after the revision: the body's route fields, checked as their own endpoints check them, and
 * its waypoints; unlocked, version + 1 over the lock.
 */
async function revisedHeader(
  route: RouteHeader,
  body: ImportedRoute,
  plan: RevisionPlan,
  dc: Dc,
): Promise<RouteHeader> {
  if (body.driver_id !== route.assignedDriverId) {
    if (route.startedTimestamp !== undefined)
      throw new ConflictError(
        'TRANSITION_NOT_ALLOWED',
        `route.driver_id: route ${quote(route.routeId)} has started; cannot change its driver`,
      );
    await requireDriverOfDc(route.accountId, route.dcId, body.driver_id);
  }
  return {
    ...route,
    name: body.name ?? body.id,
    startTime: body.start_time,
    localDate: localDateOf(body.start_time, dc.timeZone),
    assignedDriverId: body.driver_id,
    vehicleId: body.vehicle?.id,
    startWarehouse: body.start_warehouse,
    endWarehouse: body.end_warehouse,
    ...orderFields(
      plan.waypointIds.map((id, position) => ({ id, sequence: plan.waypointSequences[position] as number })),
    ),
    nextWaypointSequence: plan.nextWaypointSequence,
    // A revision's waypoints take the DC's defaults as they are now, as an import's do.
    defaultRequirements: dc.deliveryRequirements,
    revisionTxid: undefined,
    version: route.version + 2,
  };
}

const HEADER_FIELDS = [
  'name',
  'startTime',
  'assignedDriverId',
  'vehicleId',
  'startWarehouse',
  'endWarehouse',
  'defaultRequirements',
] as const satisfies (keyof RouteHeader)[];

const headerFieldsSame = (route: RouteHeader, next: RouteHeader) =>
  HEADER_FIELDS.every((field) => sameAsJson(route[field], next[field]));

/**
 * The rows of these waypoints and their tracking links' lookups, as items: invoice and item rows in the
 * shards of the route's import (an added waypoint sorts last: its rows join the last shard).
 */
function itemsOf(route: RouteHeader, stops: StoredWaypoint[]): Item[] {
  const { accountId, routeId, trackingKey } = route;
  return [
    ...routeRowItems(
      accountId,
      routeId,
      stops.map((stop) => stop.waypoint),
      stops.map((stop) => stop.invoices),
      rowShardsOf(route),
    ),
    ...(trackingKey === undefined
      ? []
      : trackingLookupItemsAt(
          { ...route, trackingKey },
          stops.map((stop) => stop.waypoint),
        )),
  ];
}

const keyOf = (item: Item): TableKey => ({ pk: item.pk, sk: item.sk });
const keyText = (key: TableKey) => `${key.pk}\u0000${key.sk}`;

/** Items of `items` whose keys are not among `others`'. */
function keysNotIn(items: Item[], others: Item[]): TableKey[] {
  const kept = new Set(others.map((item) => keyText(keyOf(item))));
  return items.map(keyOf).filter((key) => !kept.has(keyText(key)));
}

/**
 * Writes the plan's rows, the before image first (a run stopped anywhere after it is rolled back from it):
 * replaced rows of removed and changed waypoints (and removed waypoints' tracking links) are deleted unless
 * the new rows overwrite them, and the new rows of added and changed waypoints put, after the added ids
 * are claimed for the route's import (so that a deletion of the route frees them like the others).
 */
async function applyRows(
  record: ImportRecord,
  route: RouteHeader,
  locked: RouteHeader,
  plan: RevisionPlan,
): Promise<void> {
  const replacedItems = itemsOf(route, [...plan.removed, ...plan.rewritten.map((change) => change.before)]);
  const newItems = itemsOf(route, [...plan.added, ...plan.rewritten.map((change) => change.after)]);
  const image: BeforeImage = {
    lockedVersion: locked.version,
    replacedItems,
    writtenKeys: newItems.map(keyOf),
    addedClaims: plan.addedClaims,
  };
  await putJsonObject(bucketKeys.revisionBeforeImage(record.accountId, record.txid), JSON.stringify(image));
  await takeClaims(route.accountId, plan.addedClaims, route.importTxid, route.routeId);
  await deleteAll(keysNotIn(replacedItems, newItems));
  await putAll(newItems);
}

/**
 * Undoes what a run of the revision wrote while it held the route's lock, and unlocks the header as it was
 * (version included): nothing when the header is not locked by this revision (never locked, committed,
 * or rolled back already). Idempotent. No image means no row was written (it is written first, and S3 reads
 * are consistent) while the image cannot have expired; later it may have, and rows may be written:
 * 'image_lost', and the header stays locked, since unlocking it would call a half-written route whole.
 */
async function rollBack(record: ImportRecord): Promise<'rolled_back' | 'image_lost'> {
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
    return JSON.parse(text) as BeforeImage;
  } catch (error) {
    if (isMissingObject(error)) return undefined; // no row was written
    throw error;
  }
}

/** A before image holds at most a whole route's rows (a 100 MB upload's, as items): far less than this. */
const MAX_BEFORE_IMAGE_BYTES = 4 * MAX_UPLOAD_BYTES;

/** The header as it was before `locked` locked it: same fields, its version back. */
async function unlock(locked: RouteHeader): Promise<void> {
  const restored: RouteHeader = { ...locked, revisionTxid: undefined, version: locked.version - 1 };
  if (!(await replaceRouteHeader(restored, locked.version)))
    throw new Error('the locked route changed under its revision');
}

/**
 * What follows a committed revision, carried forward by any run: the removed ids are freed, the ETAs
 * recomputed (a started route's from now), and the revision ends SUCCEEDED.
 */
async function finishCommitted(record: ImportRecord): Promise<RevisionOutcome> {
  const ref = refOf(record);
  const route = await getRouteHeader(ref.accountId, ref.routeId);
  const stored = await getImportChanges(ref.accountId, record.txid);
  const changes: RouteChanges = stored ? JSON.parse(stored) : noChanges();
  if (route) {
    await releaseClaims(ref.accountId, removedClaimsOf(changes), route.importTxid);
    await recomputeEtas(ref);
  }
  return endRevision(record, { changes });
}

const removedClaimsOf = (changes: RouteChanges): Claim[] => [
  ...changes.waypoints.removed.map((id) => ({ kind: 'WAYPOINT' as const, id })),
  ...changes.invoices.removed.map((id) => ({ kind: 'INVOICE' as const, id })),
  ...changes.items.removed.map((id) => ({ kind: 'ITEM' as const, id })),
];

/**
 * Ends the revision: SUCCEEDED, or FAILED with its error and ROUTE_IMPORT_FAILED, which takes the route's
 * next event sequence while the route is there (re-read when another event took it).
 */
async function endRevision(
  record: ImportRecord,
  outcome: { changes: RouteChanges } | ApiError,
): Promise<RevisionOutcome> {
  const error = outcome instanceof ApiError ? { code: outcome.code, message: outcome.message } : undefined;
  const routeId = record.routeId as string;
  for (let attempt = 1; ; attempt++) {
    const now = Date.now();
    const failed = {
      accountId: record.accountId,
      dcId: record.dcId,
      routeId,
      type: 'ROUTE_IMPORT_FAILED' as const,
      details: { txid: record.txid, error: error ?? { code: 0, message: '' } },
      occurredAt: now,
    };
    const route = error ? await getRouteHeader(record.accountId, routeId) : undefined;
    // A route gone or being deleted has no sequence to take.
    const event = error ? { event: failed, takesSequence: !!route && !route.deleting } : undefined;
    const ended = await endImport(record, now, error, event);
    if (ended === 'already_ended') return 'ALREADY_FINISHED';
    if (ended === 'ended') return error ? 'FAILED' : 'SUCCEEDED';
    if (attempt >= MAX_REVISION_WRITE_ATTEMPTS)
      throw new Error(`route '${routeId}' kept taking event sequences under its revision's end`);
  }
}
