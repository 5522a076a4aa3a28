import { listAccountingRecords } from '../data/accounting';
import { getDc } from '../data/accounts';
import {
  type AnalyticsPlace,
  type AnalyticsRow,
  analyticsItem,
  analyticsKeys,
  listAttemptAnalytics,
  listRouteAnalytics,
} from '../data/analytics';
import { listAttempts } from '../data/attempts';
import { putAll } from '../data/client';
import { getDriver } from '../data/drivers';
import { listInvoiceRows } from '../data/invoice-rows';
import { listTracePoints } from '../data/location-trace';
import type { Page, SizedPageRequest } from '../data/pagination';
import { listVisits } from '../data/route-visits';
import type { RouteHeader } from '../data/routes';
import { listRouteWaypoints } from '../data/waypoint-order';
import { NotFoundError } from '../shared/errors';
import { logger } from '../shared/observability';
import { quote } from '../shared/quote';
import { attemptAnalytics, type RouteFacts, routeAnalytics } from './analytics';
import { type RouteRef, requireRoute } from './routes';

const placeOf = (route: RouteHeader): AnalyticsPlace => ({
  accountId: route.accountId,
  dcId: route.dcId,
  localDate: route.localDate,
  routeId: route.routeId,
});

/** Everything that happened on a finished route, as the analytics computation takes it. */
async function factsOf(route: RouteHeader): Promise<RouteFacts> {
  const driverRef = route.assignedDriverId;
  const [dc, driver, waypoints, invoices, attempts, accountingRecords, trace, visits] = await Promise.all([
    getDc(route.accountId, route.dcId),
    driverRef ? getDriver(route.accountId, route.dcId, driverRef) : undefined,
    listRouteWaypoints(route),
    listInvoiceRows(route).then((page) => page.items),
    listAttempts(route.accountId, route.routeId),
    listAccountingRecords(route.accountId, route.routeId).then((page) => page.items),
    driverRef && route.startedTimestamp !== undefined
      ? listTracePoints(
          { accountId: route.accountId, dcId: route.dcId, driverId: driverRef },
          route.startedTimestamp,
          route.finalizedTimestamp ?? Date.now(),
        )
      : [],
    listVisits(route.accountId, route.routeId),
  ]);
  if (!dc) throw new Error(`DC ${route.dcId} of route ${route.routeId} is gone`);
  return {
    dc: { dcId: dc.dcId, name: dc.name, timeZone: dc.timeZone, etaSpeedKmh: dc.etaSpeedKmh },
    route,
    driverName: driver?.name ?? null,
    waypoints,
    invoices,
    attempts,
    accountingRecords,
    trace,
    visits,
  };
}

/**
 * Computes and stores a finished route's analytics; idempotent (the same keys are written again). The
 * attempt records go first and the route record last, so a route record means "all of it is there".
 */
export async function computeRouteAnalytics(route: RouteHeader): Promise<AnalyticsRow> {
  const facts = await factsOf(route);
  const place = placeOf(route);
  const routeRecord = routeAnalytics(facts);
  await putAll(
    attemptAnalytics(facts).map((row, index) =>
      analyticsItem(analyticsKeys.attempt(place, index), 'ATTEMPT_ANALYTICS', route.routeId, row),
    ),
  );
  await putAll([analyticsItem(analyticsKeys.route(place), 'ROUTE_ANALYTICS', route.routeId, routeRecord)]);
  return routeRecord;
}

/**
 * Right after a route is finished. A failure here only delays the analytics: the reads and exports
 * compute whatever is missing.
 */
export async function computeAfterFinish(route: RouteHeader): Promise<void> {
  try {
    await computeRouteAnalytics(route);
  } catch (error) {
    logger.error('route analytics not computed at finish; reads will compute them', {
      error,
      route_id: route.routeId,
    });
  }
}

/**
 * Where a finished route's analytics are stored and its route record, computed first (attempt records
 * too) if missing; 404 for an unknown route (3003) or one not finished yet (1003).
 */
async function requireComputedAnalytics(ref: RouteRef) {
  const route = await requireRoute(ref);
  if (!route.isFinalized) {
    throw new NotFoundError(
      `route ${quote(ref.routeId)} is not finished; its analytics are not available yet`,
    );
  }
  const place = placeOf(route);
  const [stored] = await listRouteAnalytics(place, 'ROUTE_ANALYTICS');
  return { place, routeRecord: stored ?? (await computeRouteAnalytics(route)) };
}

export async function requireRouteAnalytics(ref: RouteRef): Promise<AnalyticsRow> {
  return (await requireComputedAnalytics(ref)).routeRecord;
}

/** One page of a finished route's attempt records, in attempt order. */
export async function requireAttemptAnalytics(
  ref: RouteRef,
  page: SizedPageRequest<AnalyticsRow>,
): Promise<Page<AnalyticsRow>> {
  return listAttemptAnalytics((await requireComputedAnalytics(ref)).place, page);
}
