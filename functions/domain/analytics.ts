/**
 * Route and attempt analytics (docs/architecture.md, Analytics): the records of a finalized route, one per route and one per
 * attempt, keyed by column id in column order (the CSV header is the column maps' keys). Pure: no I/O,
 * no clock; everything comes in as RouteFacts.
 */
import type { AccountingRecord } from '../data/accounting';
import type { Dc } from '../data/accounts';
import type { Attempt } from '../data/attempts';
import type { DriverLocation } from '../data/drivers';
import type { InvoiceRow, WaypointRow } from '../data/route-rows';
import type { VisitRecord } from '../data/route-visits';
import type { RouteHeader } from '../data/routes';
import { DATE_TIME_FIELDS, localDateOf, zonedFormatter } from '../shared/time';
import {
  type AnalyticsRecord,
  type AnalyticsValue,
  ATTEMPT_ANALYSIS_COLUMNS,
  type AttemptColumn,
  ROUTE_ANALYSIS_COLUMNS,
  type RouteColumn,
} from './analytics-columns';
import {
  completionEstimate,
  computeEtas,
  DEFAULT_SPEED_KMH,
  type EtaStop,
  haversineKm,
  type LatLng,
  ROAD_FACTOR,
  travelMillis,
} from './etas';
import { itemStatusOf, progressByWaypoint } from './route-progress';

export interface RouteFacts {
  dc: Pick<Dc, 'dcId' | 'name' | 'timeZone' | 'etaSpeedKmh'>;
  /** A finalized route. */
  route: RouteHeader;
  /** null when the driver no longer exists (or none was assigned). */
  driverName: string | null;
  /** In visiting order. */
  waypoints: WaypointRow[];
  /** In import order, items included; the items' stored status is ignored: statuses come from the attempts. */
  invoices: InvoiceRow[];
  /** Oldest first. */
  attempts: Attempt[];
  accountingRecords: AccountingRecord[];
  /** The driver's pings between the route's start and finalization, oldest first. */
  trace: DriverLocation[];
  /** The visits arrival detection saw, by waypoint, then arrival. */
  visits: Pick<VisitRecord, 'waypointId' | 'arrivedAt' | 'departedAt'>[];
}

/** An attempt belongs to a visit it happened in, or at most this long after (recorded in the van). */
const ATTEMPT_AFTER_DEPARTURE_MS = 10 * 60_000;

/** The visit of the attempt's waypoint it happened in (the latest that began by then), if one was detected. */
function visitOfAttempt(attempt: Attempt, visits: RouteFacts['visits']) {
  return visits
    .filter(
      (visit) =>
        visit.waypointId === attempt.waypointId &&
        visit.arrivedAt <= attempt.timestamp &&
        (visit.departedAt === undefined ||
          attempt.timestamp <= visit.departedAt + ATTEMPT_AFTER_DEPARTURE_MS),
    )
    .at(-1);
}

const dateTimeFormatter = zonedFormatter('en-US', DATE_TIME_FIELDS);

const twoDigits = (value: number) => String(value).padStart(2, '0');

/**
 * An instant as the DC's wall clock shows it, in ISO 8601 with the zone's UTC offset at that instant
 * ('2026-10-25T02:30:00+02:00', then '2026-10-25T02:30:00+01:00' an hour later in Berlin), as every time
 * in the analytics. Milliseconds are dropped, not rounded.
 */
export function localIsoDateTime(epochMs: number, timeZone: string): string {
  const part: Record<string, string> = {};
  for (const { type, value } of dateTimeFormatter(timeZone).formatToParts(new Date(epochMs)))
    part[type] = value;
  const wallClock = `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}`;
  // The offset is how far the wall clock runs ahead of UTC: both sides in whole seconds. Every zone's
  // offset since 1972 is whole minutes, and timestamps start in 2000.
  const offsetMinutes = Math.round(
    (Date.parse(`${wallClock}Z`) - Math.floor(epochMs / 1000) * 1000) / 60_000,
  );
  const sign = offsetMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMinutes);
  return `${wallClock}${sign}${twoDigits(Math.floor(minutes / 60))}:${twoDigits(minutes % 60)}`;
}

const optionalLocalIsoDateTime = (epochMs: number | undefined, timeZone: string) =>
  epochMs === undefined ? null : localIsoDateTime(epochMs, timeZone);

/** A record with exactly the columns' keys, in their order. */
function ordered<K extends string>(columns: Readonly<Record<K, unknown>>, values: Record<K, AnalyticsValue>) {
  const record: AnalyticsRecord = {};
  for (const key of Object.keys(columns) as K[]) record[key] = values[key];
  return record;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** The item ids of each waypoint, from its invoices. */
function itemIdsByWaypoint(invoices: readonly InvoiceRow[]): Map<string, string[]> {
  const byWaypoint = new Map<string, string[]>();
  for (const invoice of invoices) {
    const ids = byWaypoint.get(invoice.waypointId) ?? [];
    ids.push(...invoice.items.map((item) => item.id));
    byWaypoint.set(invoice.waypointId, ids);
  }
  return byWaypoint;
}

/** How many of `itemIds` the attempts (oldest first) left SUCCESSFUL and FAILED. */
function itemOutcomes(itemIds: readonly string[], attempts: readonly Attempt[]) {
  let successful = 0;
  let failed = 0;
  for (const id of itemIds) {
    const status = itemStatusOf(id, attempts)?.status;
    if (status === 'SUCCESSFUL') successful++;
    else if (status === 'FAILED') failed++;
  }
  return { successful, failed };
}

type CustomerOutcome = 'UNVISITED' | 'SUCCESSFUL' | 'FAILED' | 'MIXED' | 'VISIT_LATER';

/**
 * A waypoint's final outcome. VISIT_LATER first: the visit is not over, whatever earlier attempts
 * decided. Otherwise the latest attempt decided every item, so the items say it: both ways is MIXED,
 * one way is that way (which is the latest attempt's status unless it listed every item the other
 * way); a waypoint without items takes its latest attempt's status. So the outcomes partition the
 * visited waypoints.
 */
function customerOutcome(attempts: readonly Attempt[], itemIds: readonly string[]): CustomerOutcome {
  const latest = attempts.at(-1);
  if (!latest) return 'UNVISITED';
  if (latest.status === 'VISIT_LATER') return 'VISIT_LATER';
  const { successful, failed } = itemOutcomes(itemIds, attempts);
  if (successful > 0 && failed > 0) return 'MIXED';
  if (successful > 0) return 'SUCCESSFUL';
  if (failed > 0) return 'FAILED';
  return latest.status;
}

const stopOf = (waypoint: WaypointRow): EtaStop => ({
  id: waypoint.id,
  location: waypoint.location,
  serviceTimeMinutes: waypoint.serviceTimeMinutes,
  timeWindows: waypoint.timeWindows,
});

/**
 * The plan as the planned ETAs see it: from the start warehouse (or the first waypoint) through every
 * waypoint in route order to the end warehouse. No waypoints, no plan (as plannedEtas: completion = start).
 */
function plannedFigures(route: RouteHeader, waypoints: readonly WaypointRow[], speedKmh: number) {
  const first = waypoints[0];
  if (!first) return { meters: 0, drivingSeconds: 0, journeySeconds: 0 };
  const origin = route.startWarehouse?.location ?? first.location;
  const end = route.endWarehouse?.location;
  const path: LatLng[] = [origin, ...waypoints.map((waypoint) => waypoint.location), ...(end ? [end] : [])];
  const legs = path.slice(1).map((to, index) => [path[index] as LatLng, to] as const);
  const stops = waypoints.map(stopOf);
  const etas = computeEtas({ departAt: route.startTime, origin, stops, speedKmh });
  const completion = completionEstimate(etas, stops, end, speedKmh) ?? route.startTime;
  return {
    meters: Math.round(sum(legs.map(([a, b]) => haversineKm(a, b) * ROAD_FACTOR * 1000))),
    drivingSeconds: Math.round(sum(legs.map(([a, b]) => travelMillis(a, b, speedKmh))) / 1000),
    journeySeconds: Math.round((completion - route.startTime) / 1000),
  };
}

function tracedMeters(trace: readonly LatLng[]): number {
  return Math.round(
    sum(trace.slice(1).map((point, index) => haversineKm(trace[index] as LatLng, point))) * 1000,
  );
}

const currenciesOf = (items: readonly InvoiceRow['items'][number][]) =>
  new Set(items.map((item) => item.currency));

/**
 * The items paid in cash, their currencies, and the route's cash currency (CASH_CURRENCY): theirs, or
 * the route's items' when none is paid in cash; null unless exactly one.
 */
function cashOf(invoices: readonly InvoiceRow[]) {
  const items = invoices
    .filter((invoice) => invoice.paymentMethod === 'CASH')
    .flatMap((invoice) => invoice.items);
  const currencies = currenciesOf(items);
  const candidates =
    currencies.size > 0 ? currencies : currenciesOf(invoices.flatMap((invoice) => invoice.items));
  return { items, currencies, currency: candidates.size === 1 ? ([...candidates][0] as string) : null };
}

function identity(facts: RouteFacts) {
  const { dc, route } = facts;
  return {
    dc_id: dc.dcId,
    dc_name: dc.name,
    dc_time_zone: dc.timeZone,
    route_id: route.routeId,
    route_name: route.name,
    planned_route_start_date: localDateOf(route.startTime, dc.timeZone),
    driver_id: route.assignedDriverId ?? null,
    driver_name: facts.driverName,
  };
}

/** The route's analytics record: keys exactly ROUTE_ANALYSIS_COLUMNS' keys, in order. */
export function routeAnalytics(facts: RouteFacts): AnalyticsRecord {
  const { dc, route, waypoints, invoices } = facts;
  const progress = progressByWaypoint(facts.attempts);
  const itemIds = itemIdsByWaypoint(invoices);
  const attemptsOf = (waypointId: string) => progress.get(waypointId)?.attempts ?? [];

  const outcomes = waypoints.map((waypoint) =>
    customerOutcome(attemptsOf(waypoint.id), itemIds.get(waypoint.id) ?? []),
  );
  const count = (outcome: CustomerOutcome) => outcomes.filter((o) => o === outcome).length;
  const visitCounts = waypoints.map((waypoint) => attemptsOf(waypoint.id).length);
  const items = invoices.map((invoice) =>
    itemOutcomes(
      invoice.items.map((item) => item.id),
      attemptsOf(invoice.waypointId),
    ),
  );
  const planned = plannedFigures(route, waypoints, dc.etaSpeedKmh ?? DEFAULT_SPEED_KMH);
  const cash = cashOf(invoices);
  const { startedTimestamp, finalizedTimestamp } = route;

  const values: Record<RouteColumn, AnalyticsValue> = {
    ...identity(facts),
    planned_route_start_timestamp: localIsoDateTime(route.startTime, dc.timeZone),
    planned_route_start_epoch_ms: route.startTime,
    imported_customers_count: waypoints.length,
    successful_customers_count: count('SUCCESSFUL'),
    failed_customers_count: count('FAILED'),
    try_again_later_customers_count: count('VISIT_LATER'),
    mixed_status_customers_count: count('MIXED'),
    total_visited_customers_count: outcomes.length - count('UNVISITED'),
    total_unvisited_customers_count: count('UNVISITED'),
    actual_route_departure_time: optionalLocalIsoDateTime(startedTimestamp, dc.timeZone),
    actual_route_departure_epoch_ms: startedTimestamp ?? null,
    actual_route_arrival_time: optionalLocalIsoDateTime(finalizedTimestamp, dc.timeZone),
    actual_route_arrival_epoch_ms: finalizedTimestamp ?? null,
    planned_driving_meters: planned.meters,
    total_driven_meters: tracedMeters(facts.trace),
    planned_driving_seconds: planned.drivingSeconds,
    planned_journey_seconds: planned.journeySeconds,
    total_journey_seconds:
      startedTimestamp === undefined || finalizedTimestamp === undefined
        ? null
        : Math.round((finalizedTimestamp - startedTimestamp) / 1000),
    customers_with_additional_visits: visitCounts.filter((visits) => visits > 1).length,
    total_additional_visits: sum(visitCounts.map((visits) => Math.max(0, visits - 1))),
    planned_items_count: sum(invoices.map((invoice) => invoice.items.length)),
    delivered_items_count: sum(items.map((outcome) => outcome.successful)),
    failed_items_count: sum(items.map((outcome) => outcome.failed)),
    planned_cash_cents: cash.currencies.size > 1 ? null : sum(cash.items.map((item) => item.totalPriceCents)),
    planned_cash_currency: cash.currency,
    cash_received_cents: sum(facts.accountingRecords.map((record) => record.cashReceivedCents)),
    cash_received_currency: cash.currency,
  };
  return ordered(ROUTE_ANALYSIS_COLUMNS as Record<RouteColumn, unknown>, values);
}

/** ISO 8601 intervals 'start/end' of local date-times with their offsets, by start, joined with '; '. */
function formatWindows(windows: WaypointRow['timeWindows'], timeZone: string): string {
  return [...windows]
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .map(({ start, end }) => `${localIsoDateTime(start, timeZone)}/${localIsoDateTime(end, timeZone)}`)
    .join('; ');
}

function timeliness(at: number, windows: WaypointRow['timeWindows']) {
  if (windows.length === 0) return 'NO_WINDOW';
  if (windows.some((window) => window.start <= at && at < window.end)) return 'ON_TIME';
  return at < Math.min(...windows.map((window) => window.start)) ? 'EARLY' : 'LATE';
}

/** One record per attempt, in attempt order: keys exactly ATTEMPT_ANALYSIS_COLUMNS' keys, in order. */
export function attemptAnalytics(facts: RouteFacts): AnalyticsRecord[] {
  const { dc } = facts;
  const common = identity(facts);
  const waypointsById = new Map(facts.waypoints.map((waypoint) => [waypoint.id, waypoint]));
  const itemIds = itemIdsByWaypoint(facts.invoices);
  const seen = new Map<string, number>();

  return facts.attempts.map((attempt) => {
    const number = (seen.get(attempt.waypointId) ?? 0) + 1;
    seen.set(attempt.waypointId, number);
    const waypoint = waypointsById.get(attempt.waypointId);
    const windows = waypoint?.timeWindows ?? [];
    // The items this attempt decided, on its own.
    const decided = itemOutcomes(itemIds.get(attempt.waypointId) ?? [], [attempt]);
    const visit = visitOfAttempt(attempt, facts.visits);
    const values: Record<AttemptColumn, AnalyticsValue> = {
      ...common,
      waypoint_id: attempt.waypointId,
      customer_id: waypoint?.customerId ?? null,
      customer_name: waypoint?.name ?? null,
      attempt_id: attempt.id,
      attempt_number: number,
      visit_start_timestamp: localIsoDateTime(attempt.timestamp, dc.timeZone),
      visit_start_epoch_ms: attempt.timestamp,
      visit_meters_from_customer:
        attempt.location && waypoint
          ? Math.round(haversineKm(attempt.location, waypoint.location) * 1000)
          : null,
      aggregate_visit_status: decided.successful > 0 && decided.failed > 0 ? 'MIXED' : attempt.status,
      waypoint_time_windows: formatWindows(windows, dc.timeZone),
      visit_timeliness: timeliness(attempt.timestamp, windows),
      items_successful: decided.successful,
      items_failed: decided.failed,
      proof_count: attempt.proofIds.length,
      signer_name: attempt.signerName ?? null,
      pin_verified: attempt.pinVerified ? 'TRUE' : 'FALSE',
      age_check_result: attempt.ageCheck?.result ?? null,
      arrival_epoch_ms: visit?.arrivedAt ?? null,
      dwell_seconds:
        visit?.departedAt === undefined ? null : Math.floor((visit.departedAt - visit.arrivedAt) / 1000),
      arrival_timeliness: visit ? timeliness(visit.arrivedAt, windows) : null,
    };
    return ordered(ATTEMPT_ANALYSIS_COLUMNS as Record<AttemptColumn, unknown>, values);
  });
}
