import { listAttempts } from '../data/attempts';
import { type Claim, releaseClaimItem, releaseClaims } from '../data/claims';
import { conditionFailedAt, deleteAll, MAX_TRANSACTION_ITEMS } from '../data/client';
import { eventSequenceRaced } from '../data/route-event-sequences';
import { deleteRouteRowItem, deleteUnvisitedWaypointItem, listWaypointInvoiceRows } from '../data/route-rows';
import { type RouteHeader, replaceRouteHeader, waypointSequenceOf } from '../data/routes';
import { deleteTrackingLookupItems } from '../data/tracking-links';
import type { EventDetails } from '../models/event-catalog';
import { ConflictError, NotFoundError } from '../shared/errors';
import { quote } from '../shared/quote';
import { recomputeEtas } from './route-etas';
import { sequencedEventItems } from './route-events';
import { type RouteRef, rejectFinalized, requireRoute } from './routes';

/** What a change of a route's waypoints did (ROUTE_UPDATED's `changes`): ids added, removed and changed. */
export type RouteChanges = EventDetails<'ROUTE_UPDATED'>['changes'];

/** How often a cancellation re-reads and retries after another writer changed the route in between. */
const MAX_CANCEL_ATTEMPTS = 5;

function waypointVisited(waypointId: string): ConflictError {
  return new ConflictError(
    'WAYPOINT_VISITED',
    `waypoint_id: waypoint ${quote(waypointId)} was visited (it has an attempt); it cannot be removed or changed`,
  );
}

const removedOnly = (ids: string[]) => ({ added: [], removed: ids, changed: [] });

/**
 * Cancels one waypoint of a route that is not finished (started or not), unless it was visited:
 * 1. refuses a finished route (3012), a waypoint not on the route (1003) and one with an attempt (3100);
 * 2. in one transaction, on condition that the route's version is still the one read and that no attempt
 *    marked the waypoint visited meanwhile: the header without the waypoint (version + 1; the other
 *    waypoints keep their sequences), the waypoint's row deleted, its tracking link's lookup deleted, and
 *    ROUTE_UPDATED with the waypoint's, invoices' and items' ids as removed; with them its invoice and item
 *    rows deleted and its ids freed when all of it fits in one transaction (100 items), else right after;
 * 3. recomputes the route's ETAs.
 * Cancelling it again answers 1003: the waypoint is no longer on the route.
 */
export async function cancelWaypoint(ref: RouteRef, waypointId: string): Promise<RouteHeader> {
  for (let attempt = 1; attempt <= MAX_CANCEL_ATTEMPTS; attempt++) {
    const route = await requireRoute(ref);
    rejectFinalized(route);
    const sequence = waypointSequenceOf(route, waypointId);
    if (sequence === undefined)
      throw new NotFoundError(
        `waypoint_id: waypoint ${quote(waypointId)} not found on route ${quote(ref.routeId)}`,
      );
    const [attempts, invoiceRows] = await Promise.all([
      listAttempts(ref.accountId, ref.routeId, { first: sequence, last: sequence }),
      listWaypointInvoiceRows(ref.accountId, ref.routeId, sequence),
    ]);
    // Attempts recorded before waypoints carried their visited mark are found by reading them.
    if (attempts.length > 0) throw waypointVisited(waypointId);

    const position = route.waypointIds.indexOf(waypointId);
    const sequences = route.waypointSequences ?? route.waypointIds.map((_, index) => index);
    const next: RouteHeader = {
      ...route,
      waypointIds: route.waypointIds.filter((_, index) => index !== position),
      waypointSequences: sequences.filter((_, index) => index !== position),
      version: route.version + 1,
    };
    const idsOf = (kind: Claim['kind']) =>
      invoiceRows.flatMap((row) => (row.claim.kind === kind ? [row.claim.id] : []));
    const changes: RouteChanges = {
      waypoints: removedOnly([waypointId]),
      invoices: removedOnly(idsOf('INVOICE')),
      items: removedOnly(idsOf('ITEM')),
    };
    const freed: Claim[] = [{ kind: 'WAYPOINT', id: waypointId }, ...invoiceRows.map((row) => row.claim)];
    const trackingItems =
      route.trackingKey === undefined ? [] : deleteTrackingLookupItems(route.trackingKey, [waypointId]);
    const cleanup = [
      ...invoiceRows.map((row) => deleteRouteRowItem(row.key)),
      ...freed.map((claim) => releaseClaimItem(ref.accountId, claim, route.importTxid)),
    ];
    // Header, waypoint row, event sequence and event, then the rest: a waypoint with few invoices and items
    // goes at once.
    const atOnce = 4 + trackingItems.length + cleanup.length <= MAX_TRANSACTION_ITEMS;
    const alsoWrite = [
      deleteUnvisitedWaypointItem(ref.accountId, ref.routeId, sequence),
      ...(await sequencedEventItems({
        accountId: ref.accountId,
        dcId: ref.dcId,
        routeId: ref.routeId,
        type: 'ROUTE_UPDATED',
        details: { version: next.version, changes },
        occurredAt: Date.now(),
      })),
      ...trackingItems,
      ...(atOnce ? cleanup : []),
    ];
    try {
      const written = await replaceRouteHeader(next, route.version, alsoWrite);
      if (!written) continue;
    } catch (error) {
      // Another event of the route took the sequence read: read again.
      if (eventSequenceRaced(error, [{}, ...alsoWrite])) continue;
      // The route's version held but an attempt marked the waypoint visited since it was read.
      if (conditionFailedAt(error, 1)) throw waypointVisited(waypointId);
      throw error;
    }
    if (!atOnce) {
      await deleteAll(invoiceRows.map((row) => row.key));
      await releaseClaims(ref.accountId, freed, route.importTxid);
    }
    await recomputeEtas(ref);
    return next;
  }
  throw new Error(
    `route '${ref.routeId}' kept changing under ${MAX_CANCEL_ATTEMPTS} attempts to cancel a waypoint`,
  );
}
