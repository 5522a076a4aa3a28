import { type AccountingRecord, listAccountingRecords } from '../data/accounting';
import { getDc } from '../data/accounts';
import { type Attempt, listAttempts } from '../data/attempts';
import { getDriver } from '../data/drivers';
import { decodeNextTokenAmong, type Page, type PageRequest } from '../data/pagination';
import { getRouteEtas, type RouteEtas } from '../data/route-etas';
import {
  getRouteHeader,
  type InvoiceRow,
  listActiveRoutesOfDriver,
  listInvoiceRows,
  listInvoiceRowsOfWaypoints,
  listWaypointRows,
  ROUTE_ROW_PREFIX,
  type RouteHeader,
  routeKeys,
  type WaypointRow,
} from '../data/routes';
import type { DriverCaller } from '../shared/auth-context';
import { NotFoundError } from '../shared/errors';
import { plannedEtas } from './route-etas';
import {
  actualCompletion,
  itemStatusOf,
  progressByWaypoint,
  progressOf,
  type WaypointProgress,
  type WaypointStatus,
} from './route-progress';
import { type RouteRef, requireRoute } from './routes';

/** The spec answers 400 (not 404) with 3003 on the invoice status and accounting reads. */
const NOT_FOUND_STATUS = 400;

export interface WaypointDetail extends WaypointRow {
  status: WaypointStatus;
  /** Latest ETA while the waypoint is still to be visited; null once done. */
  eta: number | null;
  attempts: Attempt[];
}

/** One page of the route's invoices with their items' latest statuses, in import order. */
export async function invoiceStatus(ref: RouteRef, page: PageRequest): Promise<Page<InvoiceRow>> {
  await requireRoute(ref, NOT_FOUND_STATUS);
  const [invoices, attempts] = await Promise.all([
    listInvoiceRows(ref.accountId, ref.routeId, page),
    listAttempts(ref.accountId, ref.routeId),
  ]);
  return { ...invoices, items: withItemStatuses(invoices.items, progressByWaypoint(attempts)) };
}

function withItemStatuses(
  invoices: readonly InvoiceRow[],
  progress: ReadonlyMap<string, WaypointProgress>,
): InvoiceRow[] {
  return invoices.map((invoice) => {
    const visits = progress.get(invoice.waypointId)?.attempts ?? [];
    return {
      ...invoice,
      items: invoice.items.map((item) => ({ ...item, status: itemStatusOf(item.id, visits) })),
    };
  });
}

export async function accountingRecords(ref: RouteRef, page: PageRequest): Promise<Page<AccountingRecord>> {
  await requireRoute(ref, NOT_FOUND_STATUS);
  return listAccountingRecords(ref.accountId, ref.routeId, page);
}

/**
 * The stored ETAs, or the planned ones for a route imported before ETAs were stored (computed along all
 * of its waypoints).
 */
async function etasOf(
  route: RouteHeader,
  allWaypoints: () => Promise<readonly WaypointRow[]>,
  stored: RouteEtas | undefined,
): Promise<RouteEtas> {
  if (stored) return stored;
  const [dc, waypoints] = await Promise.all([getDc(route.accountId, route.dcId), allWaypoints()]);
  return plannedEtas(route, waypoints, dc?.etaSpeedKmh);
}

function detailOf(waypoint: WaypointRow, progress: WaypointProgress, etas: RouteEtas): WaypointDetail {
  const eta =
    progress.status === 'SUCCESSFUL' || progress.status === 'FAILED' ? null : etas.etas[waypoint.sequence];
  return { ...waypoint, status: progress.status, eta: eta ?? null, attempts: progress.attempts };
}

/** Everything about a route's waypoints: rows, statuses, attempts and ETAs, in sequence. */
async function routeProgress(route: RouteHeader) {
  const [{ items: waypoints }, attempts, stored] = await Promise.all([
    listWaypointRows(route.accountId, route.routeId),
    listAttempts(route.accountId, route.routeId),
    getRouteEtas(route.accountId, route.routeId),
  ]);
  const progress = progressByWaypoint(attempts);
  const etas = await etasOf(route, async () => waypoints, stored);
  return {
    waypoints: waypoints.map((waypoint) => detailOf(waypoint, progressOf(progress, waypoint), etas)),
    actual: actualCompletion(waypoints, progress),
    etas,
  };
}

/** One page of the waypoints of a route in sequence, with status, attempts and ETA. */
export async function waypointsOf(ref: RouteRef, page: PageRequest): Promise<Page<WaypointDetail>> {
  return (await waypointPage(await requireRoute(ref), page)).waypoints;
}

/** A page of the route's waypoints in detail, and the progress of all of them. */
async function waypointPage(route: RouteHeader, page: PageRequest) {
  const [waypoints, attempts, stored] = await Promise.all([
    listWaypointRows(route.accountId, route.routeId, page),
    listAttempts(route.accountId, route.routeId),
    getRouteEtas(route.accountId, route.routeId),
  ]);
  const progress = progressByWaypoint(attempts);
  const allWaypoints = async () => (await listWaypointRows(route.accountId, route.routeId)).items;
  const etas = await etasOf(route, allWaypoints, stored);
  const details = waypoints.items.map((waypoint) => detailOf(waypoint, progressOf(progress, waypoint), etas));
  return { waypoints: { ...waypoints, items: details }, progress };
}

/** One waypoint of a route; 1003 when the route has no waypoint with that id. */
export async function waypointOf(ref: RouteRef, waypointId: string): Promise<WaypointDetail> {
  const route = await requireRoute(ref);
  // The header lists the ids in sequence, so an unknown id costs no query of the rows.
  const waypoint = route.waypointIds.includes(waypointId)
    ? (await routeProgress(route)).waypoints.find((row) => row.id === waypointId)
    : undefined;
  if (!waypoint) throw new NotFoundError(`waypoint '${waypointId}' not found on route '${ref.routeId}'`);
  return waypoint;
}

export type CompletionTime = { type: 'ESTIMATED' | 'ACTUAL' | 'FINALIZED'; timestamp: number };

/**
 * When the route ends: FINALIZED once finished, ACTUAL once its last waypoint is done, ESTIMATED (from the
 * latest ETAs) before.
 */
export async function completionTime(ref: RouteRef): Promise<CompletionTime> {
  const route = await requireRoute(ref);
  if (route.isFinalized && route.finalizedTimestamp !== undefined) {
    return { type: 'FINALIZED', timestamp: route.finalizedTimestamp };
  }
  const { actual, etas } = await routeProgress(route);
  if (actual !== undefined) return { type: 'ACTUAL', timestamp: actual };
  return { type: 'ESTIMATED', timestamp: etas.completion ?? route.startTime };
}

export interface RouteDetail {
  route: RouteHeader;
  waypoints: (WaypointDetail & { invoices: InvoiceRow[] })[];
}

/** A page of the route's waypoints, each with its invoices and their items' statuses (the driver app's view). */
async function routeDetailPage(route: RouteHeader, page: PageRequest) {
  const { waypoints, progress } = await waypointPage(route, page);
  const first = waypoints.items[0];
  const last = waypoints.items.at(-1);
  const invoices =
    first && last
      ? await listInvoiceRowsOfWaypoints(route.accountId, route.routeId, first.sequence, last.sequence)
      : [];
  const byWaypoint = new Map<string, InvoiceRow[]>();
  for (const invoice of withItemStatuses(invoices, progress)) {
    byWaypoint.set(invoice.waypointId, [...(byWaypoint.get(invoice.waypointId) ?? []), invoice]);
  }
  return {
    ...waypoints,
    items: waypoints.items.map((waypoint) => ({ ...waypoint, invoices: byWaypoint.get(waypoint.id) ?? [] })),
  };
}

/**
 * One page of the driver's active and started routes in full, by planned start. `limit` counts waypoints:
 * a route cut by the page's end goes on in the next page (its token points into that route's waypoints).
 * Started routes come from the driver's own item (read consistently), active ones from the index; each
 * header is re-read and checked.
 */
export async function routesOfDriver(driver: DriverCaller, page: PageRequest): Promise<Page<RouteDetail>> {
  const routes = await runningRoutesOf(driver);
  const partitions = routes.map((route) => routeKeys.route(route.accountId, route.routeId).pk);
  const start = decodeNextTokenAmong(page.nextToken, partitions, ROUTE_ROW_PREFIX.waypoint);
  const items: RouteDetail[] = [];
  let remaining = page.limit;
  for (
    let index = start ? partitions.indexOf(start.pk) : 0;
    index < routes.length && remaining > 0;
    index++
  ) {
    const route = routes[index] as RouteHeader;
    const nextToken = start?.pk === partitions[index] ? page.nextToken : undefined;
    const waypoints = await routeDetailPage(route, { limit: remaining, nextToken });
    if (waypoints.items.length > 0) items.push({ route, waypoints: waypoints.items });
    remaining -= waypoints.items.length;
    if (waypoints.nextToken) return { items, nextToken: waypoints.nextToken };
  }
  return { items };
}

async function runningRoutesOf(driver: DriverCaller): Promise<RouteHeader[]> {
  const [active, record] = await Promise.all([
    listActiveRoutesOfDriver(driver.accountId, driver.dcId, driver.driverId),
    getDriver(driver.accountId, driver.dcId, driver.driverId),
  ]);
  const routeIds = new Set([...(record?.startedRouteIds ?? []), ...active.map((route) => route.routeId)]);
  const headers = await Promise.all(
    [...routeIds].map((routeId) => getRouteHeader(driver.accountId, routeId)),
  );
  return headers
    .filter((route): route is RouteHeader => route !== undefined)
    .filter(
      (route) =>
        route.dcId === driver.dcId &&
        route.assignedDriverId === driver.driverId &&
        !route.deleting &&
        !route.isFinalized &&
        (route.isActive || route.startedTimestamp !== undefined),
    )
    .sort((a, b) => a.startTime - b.startTime || a.routeId.localeCompare(b.routeId));
}
