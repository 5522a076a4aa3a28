import { listAttempts } from '../data/attempts';
import type { Claim } from '../data/claims';
import { listWaypointInvoiceRows } from '../data/invoice-rows';
import { writeRouteChange } from '../data/route-header-writes';
import {
  nextWaypointSequenceOf,
  type RouteHeader,
  waypointSequenceOf,
  waypointSequencesOf,
} from '../data/routes';
import { NotFoundError } from '../shared/errors';
import { quote } from '../shared/quote';
import { type RouteChanges, waypointVisited } from './route-diff';
import { recomputeEtas } from './route-etas';
import { type RouteRef, rejectFinalized, requireRoute } from './routes';

/*
 * DELETE .../waypoints/{waypoint_id}, apart from the revisions (route-revisions.ts): those reach the bucket,
 * whose S3 client a cancellation never needs and whose SDK code would weigh on its cold start.
 */

/** How often a cancellation re-reads and retries after another writer changed the route in between. */
const MAX_CANCEL_ATTEMPTS = 5;

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
      listWaypointInvoiceRows(route, sequence),
    ]);
    // Attempts recorded before waypoints carried their visited mark are found by reading them.
    if (attempts.length > 0) throw waypointVisited(waypointId);

    const position = route.waypointIds.indexOf(waypointId);
    const sequences = waypointSequencesOf(route);
    const next: RouteHeader = {
      ...route,
      waypointIds: route.waypointIds.filter((_, index) => index !== position),
      waypointSequences: sequences.filter((_, index) => index !== position),
      nextWaypointSequence: nextWaypointSequenceOf(route),
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
    const written = await writeRouteChange(next, route.version, {
      cancelledWaypoint: { sequence, waypointId, rowKeys: invoiceRows.map((row) => row.key), freed },
      event: {
        accountId: ref.accountId,
        dcId: ref.dcId,
        routeId: ref.routeId,
        type: 'ROUTE_UPDATED',
        details: { version: next.version, changes, order_changed: false },
        occurredAt: Date.now(),
      },
    });
    // The route's version held but an attempt marked the waypoint visited since it was read.
    if (written.outcome === 'waypoint_visited') throw waypointVisited(waypointId);
    // Another change of the route, or another event of it that took the sequence read: read again.
    if (written.outcome !== 'written') continue;
    await recomputeEtas(ref);
    return next;
  }
  throw new Error(
    `route '${ref.routeId}' kept changing under ${MAX_CANCEL_ATTEMPTS} attempts to cancel a waypoint`,
  );
}
