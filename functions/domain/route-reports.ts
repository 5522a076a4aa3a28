import { type AccountingRecord, listAccountingRecords } from '../data/accounting';
import { getDc } from '../data/accounts';
import { type Attempt, listAttempts } from '../data/attempts';
import { getDriver } from '../data/drivers';
import { type InvoiceRowsPage, invoicesOfRead, readInvoiceRowsAlongside } from '../data/invoice-rows';
import {
  cutToBudget,
  decodeNextTokenAmong,
  encodeNextToken,
  type Page,
  type PageRequest,
  type SizedPageRequest,
} from '../data/pagination';
import { getRouteEtas, type RouteEtas } from '../data/route-etas';
import { type InvoiceRow, type ItemRow, type WaypointRow, waypointKeyOf } from '../data/route-rows';
import { listVisits, type VisitRecord } from '../data/route-visits';
import {
  getRouteHeader,
  listActiveRoutesOfDriver,
  ROUTE_ROW_PREFIX,
  type RouteHeader,
  routeKeys,
} from '../data/routes';
import {
  listInvoiceRowsOfStops,
  listRouteWaypoints,
  listWaypointRowsInOrder,
  sequenceSpan,
} from '../data/waypoint-order';
import { type Applied, appliedRequirements } from '../models/delivery-requirements';
import type { DriverCaller } from '../shared/auth-context';
import { NotFoundError } from '../shared/errors';
import { countWithinBudget, PAGE_BYTE_BUDGET } from '../shared/limits';
import { quote } from '../shared/quote';
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
import { trackingUrlOf } from './tracking-links';

export interface WaypointDetail extends WaypointRow {
  /** The delivery rules that apply: its own over the DC's defaults as the route took them. */
  rules: Applied;
  status: WaypointStatus;
  /** Latest ETA while the waypoint is still to be visited; null once done. */
  eta: number | null;
  attempts: Attempt[];
  /** The visits arrival detection saw (./arrivals.ts), in time order. */
  visits: { arrivedAt: number; departedAt?: number }[];
}

/** A waypoint as the route reads answer it: with its tracking page. */
export interface RouteWaypoint extends WaypointDetail {
  /** The waypoint's tracking page for its customer; null on a route imported before tracking links. */
  trackingUrl: string | null;
}

const withTrackingUrl = (route: RouteHeader, waypoint: WaypointDetail): RouteWaypoint => ({
  ...waypoint,
  trackingUrl: trackingUrlOf(route, waypoint),
});

/** A page of invoices, each invoice (without its items) and each item weighed as it will be serialized. */
export interface InvoicePageRequest extends PageRequest {
  invoiceHeaderBytes: (invoice: InvoiceRow) => number;
  itemBytes: (item: ItemRow) => number;
}

/**
 * One page of the route's invoices with their items' latest statuses, in import order: `limit` rows, fewer
 * when they reach the byte budget. The statuses come from the attempts of the page's waypoints only.
 */
export async function invoiceStatus(ref: RouteRef, page: InvoicePageRequest): Promise<Page<InvoiceRow>> {
  // The page's first query goes out with the header's read; its rows count once the header says the route is the caller's.
  const read = await readInvoiceRowsAlongside(ref, requireRoute(ref), page);
  // The header of an invoice the page starts inside of and the attempts of its waypoints need only the rows:
  // read at once, a page costs one round trip less.
  const [invoices, attempts] = await Promise.all([
    invoicesOfRead(read),
    read.waypoints ? listAttempts(ref.accountId, ref.routeId, read.waypoints) : [],
  ]);
  const items = withItemStatuses(invoices.items, progressByWaypoint(attempts));
  return invoicesWithinBudget({ ...invoices, items }, page);
}

/**
 * The leading rows of an invoice page that fit the byte budget; `next_token` then points just after the
 * last row kept, so a cut invoice continues on the next page. A header repeated from an earlier page is
 * no row of its own: it weighs with the item that follows it, and at least that item is kept.
 */
function invoicesWithinBudget(page: InvoiceRowsPage, request: InvoicePageRequest): Page<InvoiceRow> {
  const headerIsRow = (index: number) => index > 0 || !page.continuesInvoice;
  const rowWeights = page.items.flatMap((invoice, index) => {
    const header = request.invoiceHeaderBytes(invoice);
    const items = invoice.items.map(request.itemBytes);
    if (headerIsRow(index)) return [header, ...items];
    return items.map((bytes, item) => (item === 0 ? header + bytes : bytes));
  });
  const count = countWithinBudget(rowWeights, (bytes) => bytes);
  if (count === rowWeights.length) return { items: page.items, nextToken: page.nextToken };
  const kept: InvoiceRow[] = [];
  let rowsLeft = count;
  for (const [index, invoice] of page.items.entries()) {
    if (headerIsRow(index)) rowsLeft--;
    const items = invoice.items.slice(0, rowsLeft);
    rowsLeft -= items.length;
    kept.push({ ...invoice, items });
    if (rowsLeft === 0) break;
  }
  return { items: kept, nextToken: encodeNextToken(page.rowKeys[count - 1]) };
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
  await requireRoute(ref);
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

function detailOf(
  route: RouteHeader,
  waypoint: WaypointRow,
  progress: WaypointProgress,
  etas: RouteEtas,
  visits: readonly VisitRecord[],
): WaypointDetail {
  const eta =
    progress.status === 'SUCCESSFUL' || progress.status === 'FAILED' ? null : etas.etas[waypoint.sequence];
  return {
    ...waypoint,
    rules: appliedRequirements(route.defaultRequirements, waypoint.requirements),
    status: progress.status,
    eta: eta ?? null,
    attempts: progress.attempts,
    visits: visits
      .filter((visit) => visit.waypointId === waypoint.id)
      .map(({ arrivedAt, departedAt }) => ({ arrivedAt, departedAt })),
  };
}

/** Everything about a route's waypoints: rows, statuses, attempts and ETAs, in visiting order. */
async function routeProgress(route: RouteHeader) {
  const [waypoints, attempts, stored, visits] = await Promise.all([
    listRouteWaypoints(route),
    listAttempts(route.accountId, route.routeId),
    getRouteEtas(route.accountId, route.routeId),
    listVisits(route.accountId, route.routeId),
  ]);
  const progress = progressByWaypoint(attempts);
  const etas = await etasOf(route, async () => waypoints, stored);
  return {
    waypoints: waypoints.map((waypoint) =>
      detailOf(route, waypoint, progressOf(progress, waypoint), etas, visits),
    ),
    actual: actualCompletion(waypoints, progress),
    etas,
  };
}

/**
 * One page of the waypoints of a route in visiting order, with status, attempts and ETA: `limit` waypoints, fewer
 * when they reach the byte budget.
 */
export async function waypointsOf(
  ref: RouteRef,
  page: SizedPageRequest<RouteWaypoint>,
): Promise<Page<RouteWaypoint>> {
  const route = await requireRoute(ref);
  const { waypoints } = await waypointPage(route, page);
  const items = waypoints.items.map((waypoint) => withTrackingUrl(route, waypoint));
  return cutToBudget({ ...waypoints, items }, page.bytesOf, (waypoint) =>
    waypointKeyOf(route.accountId, route.routeId, waypoint),
  );
}

/** A page of the route's waypoints in detail, and the progress of those waypoints (from their attempts only). */
async function waypointPage(route: RouteHeader, page: PageRequest) {
  const [waypoints, stored] = await Promise.all([
    listWaypointRowsInOrder(route, page),
    getRouteEtas(route.accountId, route.routeId),
  ]);
  // The page's attempts and visits: those of the sequences it spans (in a reordered route, maybe others too:
  // unused).
  const range = sequenceSpan(waypoints.items.map((waypoint) => waypoint.sequence));
  const [attempts, visits] = range
    ? await Promise.all([
        listAttempts(route.accountId, route.routeId, range),
        listVisits(route.accountId, route.routeId, range),
      ])
    : [[], []];
  const progress = progressByWaypoint(attempts);
  const allWaypoints = () => listRouteWaypoints(route);
  const etas = await etasOf(route, allWaypoints, stored);
  const details = waypoints.items.map((waypoint) =>
    detailOf(route, waypoint, progressOf(progress, waypoint), etas, visits),
  );
  return { waypoints: { ...waypoints, items: details }, progress };
}

/** One waypoint of a route; 1003 when the route has no waypoint with that id. */
export async function waypointOf(ref: RouteRef, waypointId: string): Promise<RouteWaypoint> {
  const route = await requireRoute(ref);
  // The header lists the ids, so an unknown id costs no query of the rows.
  const waypoint = route.waypointIds.includes(waypointId)
    ? (await routeProgress(route)).waypoints.find((row) => row.id === waypointId)
    : undefined;
  if (!waypoint)
    throw new NotFoundError(`waypoint ${quote(waypointId)} not found on route ${quote(ref.routeId)}`);
  return withTrackingUrl(route, waypoint);
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
  const invoices = await listInvoiceRowsOfStops(
    route,
    waypoints.items.map((waypoint) => waypoint.sequence),
  );
  const byWaypoint = new Map<string, InvoiceRow[]>();
  for (const invoice of withItemStatuses(invoices, progress)) {
    byWaypoint.set(invoice.waypointId, [...(byWaypoint.get(invoice.waypointId) ?? []), invoice]);
  }
  return {
    ...waypoints,
    items: waypoints.items.map((waypoint) => ({ ...waypoint, invoices: byWaypoint.get(waypoint.id) ?? [] })),
  };
}

/** A waypoint as the driver app shows it: in detail, with its invoices. */
export type DriverWaypoint = RouteDetail['waypoints'][number];

/** A page of the driver's routes: a route (without its waypoints) and a waypoint weighed as they will be serialized. */
export interface DriverRoutesPageRequest extends PageRequest {
  routeHeaderBytes: (route: RouteHeader) => number;
  waypointBytes: (waypoint: DriverWaypoint) => number;
}

/**
 * Waypoints read at a time, with their invoices and attempts: a page that the byte budget ends early reads
 * at most this many waypoints more than it returns.
 */
const DRIVER_WAYPOINTS_PER_READ = 100;

/**
 * One page of the driver's active and started routes in full, by planned start. `limit` counts waypoints,
 * and the page ends earlier when they (and their routes' headers) reach the byte budget: a route cut by
 * the page's end goes on in the next page (its token points into that route's waypoints). Started routes
 * come from the driver's own item (read consistently), active ones from the index; each header is re-read
 * and checked.
 */
export async function routesOfDriver(
  driver: DriverCaller,
  page: DriverRoutesPageRequest,
): Promise<Page<RouteDetail>> {
  const routes = await runningRoutesOf(driver);
  const partitions = routes.map((route) => routeKeys.route(route.accountId, route.routeId).pk);
  const start = decodeNextTokenAmong(page.nextToken, partitions, ROUTE_ROW_PREFIX.waypoint);
  const items: RouteDetail[] = [];
  let waypointsLeft = page.limit;
  let bytesLeft = PAGE_BYTE_BUDGET;
  let index = start ? partitions.indexOf(start.pk) : 0;
  let nextToken = start ? page.nextToken : undefined;
  while (index < routes.length) {
    const route = routes[index] as RouteHeader;
    const read = await routeDetailPage(route, {
      limit: Math.min(waypointsLeft, DRIVER_WAYPOINTS_PER_READ),
      nextToken,
    });
    const current = items.at(-1)?.route === route ? items.at(-1) : undefined;
    const headerBytes = current ? 0 : page.routeHeaderBytes(route);
    const weights = read.items.map(page.waypointBytes);
    const count = countWithinBudget(weights, (bytes) => bytes, {
      budget: bytesLeft - headerBytes,
      atLeast: items.length === 0 ? 1 : 0,
    });
    const kept = read.items.slice(0, count);
    if (kept.length > 0) {
      if (current) current.waypoints.push(...kept);
      else items.push({ route, waypoints: kept });
      bytesLeft -= headerBytes + weights.slice(0, count).reduce((sum, bytes) => sum + bytes, 0);
      waypointsLeft -= count;
    }
    if (count < read.items.length || waypointsLeft === 0) return { items, nextToken: tokenAfter(items) };
    nextToken = read.nextToken;
    if (!nextToken) index++;
  }
  return { items };
}

/** The token of a page of the driver's routes that ends early: it continues after the page's last waypoint. */
function tokenAfter(items: readonly RouteDetail[]): string | undefined {
  const last = items.at(-1) as RouteDetail;
  const waypoint = last.waypoints.at(-1) as DriverWaypoint;
  return encodeNextToken(waypointKeyOf(last.route.accountId, last.route.routeId, waypoint));
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
