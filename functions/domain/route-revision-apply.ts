import { type Dc, getDc } from '../data/accounts';
import { listAttempts } from '../data/attempts';
import { takeClaims } from '../data/claims';
import { deleteAll, type Item, putAll } from '../data/client';
import { type ImportRecord, putImportChanges } from '../data/imports';
import { listInvoiceRows } from '../data/invoice-rows';
import { getRevisionMark, putRevisionMark, type RevisionMark } from '../data/revision-marks';
import { listWaypointRows, routeRowItems, type WaypointRow } from '../data/route-rows';
import { rowShardsOf } from '../data/route-shards';
import { getRouteHeader, nextWaypointSequenceOf, type RouteHeader, replaceRouteHeader } from '../data/routes';
import type { TableKey } from '../data/table-schema';
import { trackingLookupItemsAt } from '../data/tracking-links';
import { inRouteOrder, orderFields } from '../data/waypoint-order';
import type { EventDetails } from '../models/event-catalog';
import type { ImportedRoute } from '../models/import-model';
import { ApiError, ConflictError } from '../shared/errors';
import { quote } from '../shared/quote';
import { sealRecipients } from './recipients';
import {
  changesNoRow,
  noChanges,
  planRevision,
  type RevisionPlan,
  type StoredWaypoint,
  sameAsJson,
} from './route-diff';
import { headerFieldsOfBody, requireDriverOfDc } from './route-import';
import { isDone, progressByWaypoint, progressOf } from './route-progress';
import { keyOf, keyText, putBeforeImage, rollBack, unlock } from './route-revision-rollback';
import { DriverGoneError, type RouteRef, requireRoute, writeHeader } from './routes';

/*
 * Applying a revision to its route (PUT .../revision, run by the import worker through route-revisions.ts):
 * under the route's lock, all or nothing.
 */

/** How often a revision's write re-reads and retries after another writer took the route's next sequence. */
const MAX_REVISION_WRITE_ATTEMPTS = 5;

/** How often a revision tries to lock a route that other changes keep changing before it waits its turn. */
const MAX_LOCK_ATTEMPTS = 5;

/** Most bytes of ids ROUTE_UPDATED carries (as JSON); more leaves its lists empty, marked truncated. */
const MAX_EVENT_CHANGE_BYTES = 96 * 1024;

export const revisionRouteRef = (record: ImportRecord): RouteRef => ({
  accountId: record.accountId,
  dcId: record.dcId,
  routeId: record.routeId as string,
});

/** The revision as the route's revision marks name it (data/revision-marks.ts). */
const markOf = (record: ImportRecord): RevisionMark => ({ txid: record.txid, acceptedAt: record.createdAt });

/**
 * Whether revision `a` was accepted after revision `b`: by their acceptance times, and by txid for two
 * accepted in the same millisecond, so that any two revisions of a route have one order.
 */
export const acceptedAfter = (a: RevisionMark, b: RevisionMark): boolean =>
  a.acceptedAt > b.acceptedAt || (a.acceptedAt === b.acceptedAt && a.txid > b.txid);

/**
 * How a run changes the PINs of the route's stops (./stop-pins.ts revisedPinItems), given by the import worker,
 * the one function that may seal codes (as ImportPins says why).
 */
export interface RevisionPins {
  changed: (
    next: RouteHeader,
    waypointsAfter: readonly WaypointRow[],
  ) => Promise<{ drawn: Item[]; dropped: Item[] }>;
}

/**
 * What a run of applyRevision did: committed the change, found nothing to change (the route as it was), or
 * did nothing because another revision holds the route's lock (or other changes kept changing the route):
 * the revision waits its turn.
 */
export type AppliedRevision = 'COMMITTED' | 'UNCHANGED' | 'ROUTE_LOCKED';

/**
 * Applies a revision to the route, all or nothing:
 * 1. locks the route: the header with the revision's txid (version + 1, on condition of the version read),
 *    so that no other change (an attempt, a cancellation, an assignment) lands while it applies (3102);
 *    'ROUTE_LOCKED' without doing anything when another revision holds the lock;
 * 2. refuses a revision accepted before the route's latest revision (3107): applied now, it would revert it;
 * 3. reads the route's waypoints, invoices, items and attempts, and plans the change (planRevision),
 *    with the route's fields under their own endpoints' rules (a started route keeps its driver: 3011; a
 *    driver of the DC: 3010). A refusal unlocks the header as it was, version included;
 * 4. a revision that changes nothing becomes the route's latest revision and unlocks it as it was;
 * 5. stores what it replaces in the bucket (BeforeImage), claims the added ids (3006/3008/3009 on a conflict),
 *    writes the rows (new waypoints after the last sequence, changed ones in place, removed ones deleted with
 *    their tracking links; a PIN drawn for each stop that now requires one, and dropped where none is
 *    required), and stores the changes beside the import record;
 * 6. commits: the header unlocked with its new fields and waypoints (version + 1 again, its drivers' route
 *    sets), ROUTE_UPDATED, the record's commit mark and the route's latest revision in one transaction.
 * Any error in 2 to 6 rolls back before it is thrown (and a run stopped there is rolled back by the next).
 */
export async function applyRevision(
  record: ImportRecord,
  body: ImportedRoute,
  pins: RevisionPins,
): Promise<AppliedRevision> {
  const ref = revisionRouteRef(record);
  const taken = await lockRoute(record);
  if (taken === 'ROUTE_LOCKED') return taken;
  const { route, locked } = taken;
  try {
    const [latest, waypoints, invoices, attempts, dc] = await Promise.all([
      getRevisionMark(ref.accountId, ref.routeId),
      listWaypointRows(ref.accountId, ref.routeId).then((page) => page.items),
      listInvoiceRows(route).then((page) => page.items),
      listAttempts(ref.accountId, ref.routeId),
      getDc(ref.accountId, ref.dcId),
    ]);
    if (latest && acceptedAfter(latest, markOf(record))) throw superseded(latest);
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
    const recipients = await sealRecipients(ref.accountId, body, route.trackingKey);
    const plan = planRevision(current, body, visited, done, nextWaypointSequenceOf(route), recipients);
    const next = await revisedHeader(route, body, plan, dc);
    if (changesNoRow(plan) && !plan.orderChanged && headerFieldsSame(route, next)) {
      await putRevisionMark(ref.accountId, ref.routeId, markOf(record));
      await unlock(locked);
      return 'UNCHANGED';
    }
    await applyRows(
      record,
      route,
      locked,
      next,
      plan,
      await pins.changed(next, waypointsAfter(current, plan)),
    );
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
  return 'COMMITTED';
}

/**
 * Locks the route for the revision: the header as read and as locked, or 'ROUTE_LOCKED' when another
 * revision holds it, or when other changes kept winning the race for it (the revision waits, then tries again).
 */
async function lockRoute(
  record: ImportRecord,
): Promise<{ route: RouteHeader; locked: RouteHeader } | 'ROUTE_LOCKED'> {
  const ref = revisionRouteRef(record);
  for (let attempt = 1; attempt <= MAX_LOCK_ATTEMPTS; attempt++) {
    const route = await requireRoute(ref);
    if (route.isFinalized)
      throw new ConflictError('ROUTE_FINALIZED', `route ${quote(ref.routeId)} is already finished`);
    if (route.revisionTxid !== undefined) return 'ROUTE_LOCKED';
    const locked: RouteHeader = { ...route, revisionTxid: record.txid, version: route.version + 1 };
    if (await replaceRouteHeader(locked, route.version)) return { route, locked };
  }
  return 'ROUTE_LOCKED';
}

function superseded(latest: RevisionMark): ApiError {
  return new ApiError(
    'REVISION_SUPERSEDED',
    `revision ${quote(latest.txid)} of the route, accepted at ${new Date(latest.acceptedAt).toISOString()} after this one, was applied first: this one was not applied, the route keeps the newer one`,
  );
}

/**
 * Commits a locked revision: the header unlocked with its new fields (and its drivers' route sets),
 * ROUTE_UPDATED with the route's next event sequence, the record's commit mark and the route's latest
 * revision, in one transaction. An event of the route written meanwhile (a location ping's ETAs) took the
 * sequence read: read it again.
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
    const committedRevision = { txid: record.txid, at: now, acceptedAt: record.createdAt };
    try {
      if (await writeHeader(next, locked, { event, committedRevision })) return;
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
    ...headerFieldsOfBody(body, dc),
    ...orderFields(
      plan.waypointIds.map((id, position) => ({ id, sequence: plan.waypointSequences[position] as number })),
    ),
    nextWaypointSequence: plan.nextWaypointSequence,
    // Waypoints this revision adds, and any after, get tokens of their own: a re-added id a new link.
    sequencedTokensFrom:
      route.sequencedTokensFrom ?? (plan.added.length > 0 ? nextWaypointSequenceOf(route) : undefined),
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

/** The route's waypoint rows after the plan, in visiting order: kept ones as they are, rewritten and added as planned. */
function waypointsAfter(current: readonly StoredWaypoint[], plan: RevisionPlan): WaypointRow[] {
  const rows = new Map(current.map(({ waypoint }) => [waypoint.id, waypoint]));
  for (const { after } of plan.rewritten) rows.set(after.waypoint.id, after.waypoint);
  for (const { waypoint } of plan.added) rows.set(waypoint.id, waypoint);
  return plan.waypointIds.flatMap((id) => rows.get(id) ?? []);
}

/** Items of `items` whose keys are not among `others`'. */
function keysNotIn(items: Item[], others: Item[]): TableKey[] {
  const kept = new Set(others.map((item) => keyText(keyOf(item))));
  return items.map(keyOf).filter((key) => !kept.has(keyText(key)));
}

/**
 * Writes the plan's rows, the before image first (a run stopped anywhere after it is rolled back from it):
 * replaced rows of removed and changed waypoints (and removed waypoints' tracking links) are deleted unless
 * the new rows overwrite them, and the new rows of added and changed waypoints put, after the added ids
 * are claimed for the route's import (so that a deletion of the route frees them like the others). The
 * replaced rows are the route's as it was (`route`), the new ones the revised route's (`next`).
 */
async function applyRows(
  record: ImportRecord,
  route: RouteHeader,
  locked: RouteHeader,
  next: RouteHeader,
  plan: RevisionPlan,
  pins: { drawn: Item[]; dropped: Item[] },
): Promise<void> {
  const replacedItems = [
    ...itemsOf(route, [...plan.removed, ...plan.rewritten.map((change) => change.before)]),
    ...pins.dropped,
  ];
  const newItems = [
    ...itemsOf(next, [...plan.added, ...plan.rewritten.map((change) => change.after)]),
    ...pins.drawn,
  ];
  await putBeforeImage(record, {
    lockedVersion: locked.version,
    replacedItems,
    writtenKeys: newItems.map(keyOf),
    addedClaims: plan.addedClaims,
  });
  await takeClaims(route.accountId, plan.addedClaims, route.importTxid, route.routeId);
  await deleteAll(keysNotIn(replacedItems, newItems));
  await putAll(newItems);
}
