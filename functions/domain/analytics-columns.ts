/**
 * The columns of the route and attempt analytics (docs/architecture.md, Analytics): each column's name and
 * description, in CSV order. GET /analytics/column-definitions answers them; analytics.ts fills them.
 */
import { DEFAULT_SPEED_KMH, ROAD_FACTOR } from './etas';

export type AnalyticsValue = string | number | null;
export type AnalyticsRecord = Record<string, AnalyticsValue>;

export interface ColumnDefinition {
  column_name: string;
  column_description: string;
}

const column = (column_name: string, column_description: string): ColumnDefinition =>
  Object.freeze({ column_name, column_description });

const LOCAL_TIME =
  "in the DC's time zone as an ISO 8601 date-time with its UTC offset, 'YYYY-MM-DDTHH:MM:SS+HH:MM' (e.g. 2026-10-25T02:30:00+01:00; the offset tells the two passes of a repeated hour apart)";

/** The epoch ms column after a local time column: the same instant, to the millisecond. */
const epochColumn = (column_name: string, what: string, whenEmpty?: string) =>
  column(
    column_name,
    `${what} in milliseconds since the Unix epoch: the instant the column before shows${whenEmpty ? `; ${whenEmpty}` : ''}.`,
  );

/** The currency beside both cash columns: cash accounting records carry none of their own. */
const CASH_CURRENCY =
  "ISO 4217 code of the route's cash: the currency of the items of its CASH invoices, or of all its items when none is paid in cash; a driver's cash records are in it. Empty when those items are in more than one currency or the route has no items.";

/** Columns both analytics types start with. */
const ROUTE_IDENTITY = {
  dc_id: column('DC ID', 'Id of the distribution center (DC) the route belongs to.'),
  dc_name: column('DC name', 'Name of the DC when the analytics were computed.'),
  dc_time_zone: column(
    'DC time zone',
    'IANA time zone of the DC (e.g. America/Chicago); every date and time of this file is local to it.',
  ),
  route_id: column('Route ID', 'Id of the route as imported.'),
  route_name: column('Route name', 'Name of the route as imported.'),
  planned_route_start_date: column(
    'Planned route start date',
    "Date (YYYY-MM-DD) of the route's planned start time in the DC's time zone: the route's service date.",
  ),
} as const;

const DRIVER = {
  driver_id: column('Driver ID', 'Id of the driver assigned to the route; empty when none was assigned.'),
  driver_name: column(
    'Driver name',
    'Name of the assigned driver when the analytics were computed; empty when none was assigned or the driver no longer exists.',
  ),
} as const;

const routeColumns = {
  ...ROUTE_IDENTITY,
  planned_route_start_timestamp: column(
    'Planned route start timestamp',
    `Planned start time of the route (start_time), ${LOCAL_TIME}.`,
  ),
  planned_route_start_epoch_ms: epochColumn(
    'Planned route start (epoch ms)',
    'Planned start time of the route (start_time)',
  ),
  ...DRIVER,
  imported_customers_count: column(
    'Imported customers',
    'Number of customers (waypoints) imported with the route.',
  ),
  successful_customers_count: column(
    'Successful customers',
    "Customers whose latest attempt is SUCCESSFUL (or FAILED but every item was listed SUCCESSFUL) and none of whose items ended FAILED; a customer without items counts by its latest attempt's status.",
  ),
  failed_customers_count: column(
    'Failed customers',
    "Customers whose latest attempt is FAILED (or SUCCESSFUL but every item was listed FAILED) and none of whose items ended SUCCESSFUL; a customer without items counts by its latest attempt's status.",
  ),
  try_again_later_customers_count: column(
    'Try again later customers',
    'Customers whose latest attempt is VISIT_LATER (whatever their items).',
  ),
  mixed_status_customers_count: column(
    'Mixed status customers',
    'Customers whose latest attempt is SUCCESSFUL or FAILED and whose items ended some SUCCESSFUL and some FAILED (an item takes the status of the latest attempt that decided it).',
  ),
  total_visited_customers_count: column(
    'Visited customers',
    'Customers with at least one attempt; equals successful + failed + mixed status + try again later customers.',
  ),
  total_unvisited_customers_count: column(
    'Unvisited customers',
    'Customers without any attempt; visited + unvisited = imported customers.',
  ),
  actual_route_departure_time: column(
    'Actual route departure time',
    `When the driver started the route, ${LOCAL_TIME}; empty when the route was never started.`,
  ),
  actual_route_departure_epoch_ms: epochColumn(
    'Actual route departure (epoch ms)',
    'When the driver started the route',
    'empty when the route was never started',
  ),
  actual_route_arrival_time: column(
    'Actual route arrival time',
    `When the route was finalized, ${LOCAL_TIME}.`,
  ),
  actual_route_arrival_epoch_ms: epochColumn(
    'Actual route arrival (epoch ms)',
    'When the route was finalized',
  ),
  planned_driving_meters: column(
    'Planned driving distance (m)',
    `Planned distance in meters, rounded to the meter: the great-circle distance times a road factor of ${ROAD_FACTOR} over the legs start warehouse (or first customer) -> every customer in route order -> end warehouse (when the route has one); 0 for a route without customers.`,
  ),
  total_driven_meters: column(
    'Total driven distance (m)',
    "Distance in meters, rounded to the meter, along the driver's location trace between the route's start and finalization: the sum of great-circle distances between consecutive points (no road factor: the trace follows the road); 0 with fewer than two points.",
  ),
  planned_driving_seconds: column(
    'Planned driving time (s)',
    `Planned time in seconds spent driving, rounded to the second: the planned driving legs at the DC's ETA speed (${DEFAULT_SPEED_KMH} km/h unless the DC sets one), without waits or service times.`,
  ),
  planned_journey_seconds: column(
    'Planned journey time (s)',
    'Planned time in seconds, rounded to the second, from the planned start time to the planned arrival at the end warehouse (or departure from the last customer without one): driving at the DC speed plus waits for time windows to open plus service times, as the planned ETAs.',
  ),
  total_journey_seconds: column(
    'Total journey time (s)',
    'Seconds, rounded, from the actual departure to the actual arrival (finalization); empty when the route was never started.',
  ),
  customers_with_additional_visits: column(
    'Customers with additional visits',
    'Customers with more than one attempt.',
  ),
  total_additional_visits: column(
    'Total additional visits',
    "Sum over the visited customers of their attempts minus one (every attempt after a customer's first).",
  ),
  planned_items_count: column(
    'Planned items',
    'Number of items imported with the route (item lines, not quantities).',
  ),
  delivered_items_count: column(
    'Delivered items',
    'Items whose latest status is SUCCESSFUL: decided by the latest attempt at their customer that listed them or, unlisted, was not VISIT_LATER.',
  ),
  failed_items_count: column(
    'Failed items',
    'Items whose latest status is FAILED, decided as for delivered items; items never decided count neither.',
  ),
  planned_cash_cents: column(
    'Planned cash (cents)',
    'Sum in cents of the total prices of the items of the invoices whose payment method is CASH, in the currency of the next column; empty when those items are in more than one currency (their prices do not add up).',
  ),
  planned_cash_currency: column('Planned cash currency', CASH_CURRENCY),
  cash_received_cents: column(
    'Cash received (cents)',
    "Sum in cents of the cash received of the route's cash accounting records, in the currency of the next column.",
  ),
  cash_received_currency: column('Cash received currency', CASH_CURRENCY),
} as const;

const attemptColumns = {
  ...ROUTE_IDENTITY,
  ...DRIVER,
  waypoint_id: column('Waypoint ID', 'Id of the visited waypoint (customer stop).'),
  customer_id: column('Customer ID', 'Customer id of the waypoint as imported; empty when it had none.'),
  customer_name: column('Customer name', 'Name of the waypoint as imported; empty when it had none.'),
  attempt_id: column('Attempt ID', 'Id of the attempt as the driver app reported it.'),
  attempt_number: column(
    'Attempt number',
    "1-based position of the attempt among its waypoint's attempts in the order they happened.",
  ),
  visit_start_timestamp: column(
    'Visit start timestamp',
    `When the attempt happened (its timestamp), ${LOCAL_TIME}.`,
  ),
  visit_start_epoch_ms: epochColumn('Visit start (epoch ms)', 'When the attempt happened (its timestamp)'),
  visit_meters_from_customer: column(
    'Visit distance from customer (m)',
    "Great-circle distance in meters, rounded to the meter, from the location reported with the attempt to the waypoint's location; empty when the attempt carried no location.",
  ),
  aggregate_visit_status: column(
    'Aggregate visit status',
    "The attempt's status (SUCCESSFUL, FAILED or VISIT_LATER), or MIXED when the attempt decided some items SUCCESSFUL and some FAILED.",
  ),
  waypoint_time_windows: column(
    'Waypoint time windows',
    "The waypoint's time windows sorted by start, each an ISO 8601 interval 'start/end' of DC-local date-times with their UTC offset (e.g. 2026-03-29T09:00:00+02:00/2026-03-29T11:00:00+02:00), joined with '; '; empty without windows.",
  ),
  visit_timeliness: column(
    'Visit timeliness',
    'NO_WINDOW when the waypoint has no time window; ON_TIME when the attempt happened within a window (start inclusive, end exclusive); EARLY when before the earliest window opens; LATE otherwise (after a window closed, including between windows).',
  ),
  items_successful: column(
    'Items successful',
    "Items of the waypoint the attempt decided SUCCESSFUL: listed SUCCESSFUL, or unlisted when the attempt's status is SUCCESSFUL.",
  ),
  items_failed: column(
    'Items failed',
    "Items of the waypoint the attempt decided FAILED: listed FAILED, or unlisted when the attempt's status is FAILED (a VISIT_LATER attempt decides only the items it lists).",
  ),
  proof_count: column(
    'Proof count',
    'Proofs of delivery (photos, signatures) the attempt names; 0 when none.',
  ),
  signer_name: column(
    'Signer name',
    'Who signed for the delivery, as the driver app reported it; empty when not given.',
  ),
  pin_verified: column(
    'PIN verified',
    "TRUE when the attempt gave the stop's PIN (the customer's code; requirements.pin) and it matched; FALSE when no PIN was checked: the stop requires none, or the attempt delivered nothing. The code itself is never kept.",
  ),
  age_check_result: column(
    'Age check result',
    "The recipient's ID check at a stop with a minimum age (requirements.minimum_age), counted on the day of the attempt in the DC's time zone: OLD_ENOUGH or UNDER_AGE (an attempt that delivered something is never UNDER_AGE); empty when no ID was checked. The date of birth is never kept.",
  ),
  arrival_epoch_ms: epochColumn(
    'Arrival (epoch ms)',
    "When the driver arrived for this attempt, as detected from the driver's location pings (docs/api.md, Arrivals and departures): the waypoint's latest visit that began at or before the attempt and had not ended more than 10 minutes before it; empty when no such visit was detected",
  ),
  dwell_seconds: column(
    'Dwell time (s)',
    "Whole seconds from that arrival to the driver's departure from the waypoint; empty without that arrival or while the driver had not left.",
  ),
  arrival_timeliness: column(
    'Arrival timeliness',
    "Whether that arrival was inside the waypoint's time windows: ON_TIME when within a window (start inclusive, end exclusive), EARLY before the earliest opens, LATE otherwise, NO_WINDOW without windows; empty without that arrival.",
  ),
} as const;

export type RouteColumn = keyof typeof routeColumns;
export type AttemptColumn = keyof typeof attemptColumns;

/** Ordered: the CSV header is Object.keys in this order. */
export const ROUTE_ANALYSIS_COLUMNS: Readonly<Record<string, ColumnDefinition>> = Object.freeze(routeColumns);
/** Ordered: the CSV header is Object.keys in this order. */
export const ATTEMPT_ANALYSIS_COLUMNS: Readonly<Record<string, ColumnDefinition>> =
  Object.freeze(attemptColumns);
