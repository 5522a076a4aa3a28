/**
 * The analytics columns DESIGN §6 names, in its order, with an epoch ms column after each local time and a
 * currency after each amount: the oracle the unit and e2e analytics tests check the column definitions,
 * computed rows and CSV headers against.
 */

/** The DC and route columns both kinds of row begin with. */
const ROUTE_IDENTITY_COLUMNS = [
  'dc_id',
  'dc_name',
  'dc_time_zone',
  'route_id',
  'route_name',
  'planned_route_start_date',
];

/** One row per finished route. */
export const DESIGN_ROUTE_COLUMNS = [
  ...ROUTE_IDENTITY_COLUMNS,
  'planned_route_start_timestamp',
  'planned_route_start_epoch_ms',
  'driver_id',
  'driver_name',
  'imported_customers_count',
  'successful_customers_count',
  'failed_customers_count',
  'try_again_later_customers_count',
  'mixed_status_customers_count',
  'total_visited_customers_count',
  'total_unvisited_customers_count',
  'actual_route_departure_time',
  'actual_route_departure_epoch_ms',
  'actual_route_arrival_time',
  'actual_route_arrival_epoch_ms',
  'planned_driving_meters',
  'total_driven_meters',
  'planned_driving_seconds',
  'planned_journey_seconds',
  'total_journey_seconds',
  'customers_with_additional_visits',
  'total_additional_visits',
  'planned_items_count',
  'delivered_items_count',
  'failed_items_count',
  'planned_cash_cents',
  'planned_cash_currency',
  'cash_received_cents',
  'cash_received_currency',
];

/** One row per attempt. */
export const DESIGN_ATTEMPT_COLUMNS = [
  ...ROUTE_IDENTITY_COLUMNS,
  'driver_id',
  'driver_name',
  'waypoint_id',
  'customer_id',
  'customer_name',
  'attempt_id',
  'attempt_number',
  'visit_start_timestamp',
  'visit_start_epoch_ms',
  'visit_meters_from_customer',
  'aggregate_visit_status',
  'waypoint_time_windows',
  'visit_timeliness',
  'items_successful',
  'items_failed',
  'proof_count',
  'signer_name',
  // After DESIGN §6's: how the visit met the stop's PIN and age rules (docs/api.md, Delivery rules).
  'pin_verified',
  'age_check_result',
  // After DESIGN §6's: the visit arrival detection saw (docs/api.md, Arrivals and departures).
  'arrival_epoch_ms',
  'dwell_seconds',
  'arrival_timeliness',
];
