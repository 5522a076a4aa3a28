import { putJsonObject } from '../data/bucket';
import { bucketKeys } from '../data/bucket-keys';
import { type Claim, releaseClaims } from '../data/claims';
import { endImport } from '../data/import-endings';
import { getImportChanges, type ImportRecord, importKeys, putPendingImport } from '../data/imports';
import { getRouteHeader } from '../data/routes';
import { countWorkerAttempt } from '../data/worker-attempts';
import type { ImportMessage } from '../models/channels';
import * as channels from '../models/channels';
import type { ImportedRoute } from '../models/import-model';
import { config } from '../shared/config';
import { randomId } from '../shared/crypto';
import { ApiError, ConflictError, ValidationError } from '../shared/errors';
import { logger } from '../shared/observability';
import { delaySecondsFor, send } from '../shared/queues';
import { quote } from '../shared/quote';
import { REVISION_IMAGE_DAYS } from '../shared/resources';
import { readImportBody, rejectRepeatedIds } from './import-bodies';
import { scheduleDeadlineCheck } from './import-deadlines';
import { noChanges, type RouteChanges } from './route-diff';
import { recomputeEtas } from './route-etas';
import {
  abandonedError,
  failureOfRun,
  IMPORT_ATTEMPTS,
  internalFailure,
  requireDriverOfDc,
  whilePending,
} from './route-import';
import { applyRevision, type RevisionPins, revisionRouteRef } from './route-revision-apply';
import { rollBack } from './route-revision-rollback';
import { type RouteRef, requireRoute } from './routes';

// ---- Revisions: PUT .../revision, run by the import worker ----

/** How often a revision's end re-reads and retries after another writer took the route's next sequence. */
const MAX_REVISION_WRITE_ATTEMPTS = 5;

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

/**
 * What a run of a revision found and did (FAILED: refused or given up; the route is as it was; WAITING:
 * another revision holds the route's lock, and this one's message comes back in seconds).
 */
export type RevisionOutcome = 'SUCCEEDED' | 'FAILED' | 'ALREADY_FINISHED' | 'WAITING';

/**
 * Runs one queued revision (`message`) while it is pending (`record`, read by pendingImportRecord); safe to run
 * again for the same message (SQS delivers at least once, and a run may stop anywhere). `runEndsBy` is when Lambda stops this run at the latest (epoch ms):
 * 1. a revision whose change committed is carried forward (ids freed, ETAs, SUCCEEDED); an earlier run's
 *    half-applied change is rolled back first (rollBack);
 * 2. a route locked by another revision makes it wait its turn (waitForTurn), without spending an attempt;
 * 3. a run that could pass the revision's deadline is not started: it ends FAILED (3016), as the deadline
 *    check would, so that no run is in progress when the check rolls the revision back;
 * 4. applies it (applyRevision): refusals end it FAILED with their code; so does any error on the worker's
 *    last attempt (1000), after the rollback. Earlier, other errors are rethrown for SQS to run it again.
 */
export async function runRevision(
  message: ImportMessage,
  record: ImportRecord,
  runEndsBy: number,
  pins: RevisionPins,
): Promise<RevisionOutcome> {
  if (record.committedAt === undefined && runEndsBy <= record.deadline && (await lockedByAnother(record)))
    return waitForTurn(message, record);
  const attempt = await countWorkerAttempt(importKeys.record(record.accountId, record.txid));
  if (attempt === undefined) return 'ALREADY_FINISHED';
  if (record.committedAt !== undefined) return finishCommitted(record);
  try {
    if ((await rollBack(record)) === 'image_lost') return endRevision(record, imageLost(record));
    if (attempt > IMPORT_ATTEMPTS)
      throw new Error(`the revision's last attempt (${IMPORT_ATTEMPTS}) did not finish`);
    if (runEndsBy > record.deadline) throw abandoned(record);
    const applied = await applyRevision(record, await readImportBody(record), pins);
    if (applied === 'ROUTE_LOCKED') return waitForTurn(message, record);
    return applied === 'COMMITTED'
      ? finishCommitted({ ...record, committedAt: Date.now() })
      : endRevision(record, { changes: noChanges() });
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

async function lockedByAnother(record: ImportRecord): Promise<boolean> {
  const header = await getRouteHeader(record.accountId, record.routeId as string);
  return header?.revisionTxid !== undefined && header.revisionTxid !== record.txid;
}

/**
 * Queues the revision's message again, to run in seconds: another revision holds the route's lock (for
 * seconds, or, when that one's run stopped, until SQS hands it out again). Revisions of a route run one at a
 * time; none waits out its message's visibility timeout (30 minutes) for its turn, and none waits past its
 * deadline, which ends it (3016) as any revision still pending then.
 */
async function waitForTurn(message: ImportMessage, record: ImportRecord): Promise<RevisionOutcome> {
  const seconds = turnWaitSeconds(Date.now() - record.createdAt);
  await send(channels.imports, message, { delaySeconds: delaySecondsFor(seconds * 1000) });
  logger.info('revision waits for the route, locked by another revision', {
    txid: record.txid,
    route_id: record.routeId,
    retry_in_seconds: seconds,
  });
  return 'WAITING';
}

/**
 * How long a revision that has waited `waitedMs` since it was accepted waits for its turn before it looks
 * again: 2 s at first, a tenth of its wait so far as it grows, at most a minute.
 */
export const turnWaitSeconds = (waitedMs: number): number =>
  Math.min(60, Math.max(2, Math.ceil(waitedMs / 10_000)));

/** Ends a revision the imports queue gave up (its DLQ): its change is rolled back, or carried forward if in. */
export const abandonDeadLetteredRevision = (message: ImportMessage): Promise<RevisionOutcome> =>
  whilePending(message, (record) => abandonRevision(record, abandoned('dead-lettered')));

/** Ends a revision still pending at its deadline (3016), for import-deadline-check.ts. */
export const abandonOverdueRevision = (record: ImportRecord) => abandonRevision(record, abandoned(record));

async function abandonRevision(record: ImportRecord, error: ApiError): Promise<RevisionOutcome> {
  if (record.committedAt !== undefined) return finishCommitted(record);
  return rollBackAndEnd(record, error);
}

const abandoned = (cause: Parameters<typeof abandonedError>[1]) =>
  abandonedError('revision', cause, 'the route is as it was');

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

/**
 * What follows a committed revision, carried forward by any run: the removed ids are freed, the ETAs
 * recomputed (a started route's from now), and the revision ends SUCCEEDED.
 */
async function finishCommitted(record: ImportRecord): Promise<RevisionOutcome> {
  const ref = revisionRouteRef(record);
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
