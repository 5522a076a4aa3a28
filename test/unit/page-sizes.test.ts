import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ATTEMPT_ANALYSIS_COLUMNS } from '../../functions/domain/analytics';
import { ATTEMPT_ANALYTICS_PAGE, getAttemptAnalytics } from '../../functions/endpoints/analytics';
import type { PageSize } from '../../functions/endpoints/common';
import type { EndpointDefinition } from '../../functions/endpoints/define';
import { DRIVER_ROUTE_WAYPOINTS_PAGE, listDriverRoutes } from '../../functions/endpoints/driver-app';
import { IMPORT_LIMITS } from '../../functions/endpoints/import-model';
import {
  findRoutesByDate,
  getInvoiceStatus,
  getRouteAccounting,
  listWaypoints,
  ROUTE_PAGE_SIZES,
} from '../../functions/endpoints/routes';
import { DELIVERY_ATTEMPTS_PAGE, listWebhookDeliveries } from '../../functions/endpoints/webhooks';
import { successResponse } from '../../functions/shared/envelope';

/**
 * A full page of worst-case rows must stay under 5 MB of Lambda's 6 MB response limit, measured as Lambda
 * measures it: the JSON of the proxy result, whose body is the envelope's JSON escaped once more.
 * Worst-case rows have every text at the maximum length its schema allows, written with `"`: JSON escapes
 * it twice, so it weighs 4 bytes (more than any UTF-8 character).
 */
const PAGE_BUDGET_BYTES = 5 * 1024 * 1024;
const text = (length: number) => '"'.repeat(length);
const id = () => text(128);
const timestamp = 9_999_999_999_999;
const location = { latitude: -89.12345678901235, longitude: -179.12345678901235 };
const reason = { code: text(64), message: text(500) };

const MAX_WAYPOINTS = IMPORT_LIMITS.waypoints;

const item = () => ({
  id: id(),
  sku: text(128),
  name: text(200),
  quantity: 1.2345678901234566e-7,
  total_price_cents: -999_999_999_999,
  currency: 'EUR',
  status: { status: 'SUCCESSFUL', timestamp, reason },
});

/** An invoice with 50 name attributes and the given number of items. */
const invoice = (items: number) => ({
  id: id(),
  payment_method: 'C'.repeat(32),
  invoice_name_attributes: Array.from({ length: 50 }, () => ({ key: text(128), value: text(500) })),
  items: Array.from({ length: items }, item),
});

const attempt = (items: number) => ({
  id: id(),
  timestamp,
  status: 'VISIT_LATER',
  reason,
  location,
  items: Array.from({ length: items }, () => ({ id: id(), status: 'FAILED', reason })),
  driver_id: id(),
});

/** A waypoint's share of a full route: 25 items (50,000 / 2,000) of one invoice, one attempt listing them. */
const ITEMS_PER_WAYPOINT = IMPORT_LIMITS.items / IMPORT_LIMITS.waypoints;
const waypoint = () => ({
  id: id(),
  sequence: MAX_WAYPOINTS - 1,
  customer_id: id(),
  name: text(200),
  address: text(500),
  location,
  service_time_minutes: 1440,
  time_windows: Array.from({ length: 20 }, () => ({ start: timestamp, end: timestamp })),
  invoice_ids: [id()],
  status: 'VISIT_LATER',
  eta: timestamp,
  attempts: [attempt(ITEMS_PER_WAYPOINT)],
});

const route = (waypointIds: number) => ({
  id: id(),
  name: text(200),
  assigned_driver_id: id(),
  start_time: timestamp,
  start_warehouse_id: id(),
  end_warehouse_id: id(),
  vehicle_id: id(),
  version: 999_999_999,
  waypoint_ids: Array.from({ length: waypointIds }, id),
  is_active: true,
  is_finalized: false,
  started_timestamp: timestamp,
  finalized_timestamp: timestamp,
});

const WORST_ATTEMPT_ANALYTICS: Record<string, string | number> = {
  dc_id: id(),
  dc_name: text(200),
  dc_time_zone: 'America/Argentina/ComodRivadavia',
  route_id: id(),
  route_name: text(200),
  planned_route_start_date: '2026-11-22',
  driver_id: id(),
  driver_name: text(200),
  waypoint_id: id(),
  customer_id: id(),
  customer_name: text(200),
  attempt_id: id(),
  attempt_number: 999_999,
  visit_start_timestamp: '2026-11-22 23:59:59',
  visit_meters_from_customer: 20_037_509,
  aggregate_visit_status: 'VISIT_LATER',
  waypoint_time_windows: Array(20).fill('2026-11-22 23:59:59 - 2026-11-23 23:59:59').join('; '),
  visit_timeliness: 'NO_WINDOW',
  items_successful: 999_999,
  items_failed: 999_999,
};

const delivery = () => ({
  event_id: id(),
  event_type: 'WAYPOINT_STATUS_CHANGED',
  attempt: 12,
  status_code: 599,
  error: text(500),
  duration_ms: 10_000,
  timestamp,
});

/** Bytes of Lambda's response for this data, after checking it is what the endpoint answers. */
function responseBytes(endpoint: EndpointDefinition, data: unknown): number {
  const schema = endpoint.responses[200]?.data as z.ZodType;
  expect(schema.safeParse(data).success).toBe(true);
  return Buffer.byteLength(JSON.stringify(successResponse(200, { ...(data as object), next_token: id() })));
}

const rows = <T>(count: number, row: () => T) => Array.from({ length: count }, row);

describe('page sizes keep a page of worst-case rows under 5 MB', () => {
  const cases: [string, PageSize, EndpointDefinition, (limit: number) => unknown][] = [
    [
      'invoice status: every row an invoice with 50 name attributes, plus one cut invoice repeated',
      ROUTE_PAGE_SIZES.invoiceRows,
      getInvoiceStatus,
      (limit) => ({ invoices: rows(limit + 1, () => invoice(0)) }),
    ],
    [
      'invoice status: every row an item',
      ROUTE_PAGE_SIZES.invoiceRows,
      getInvoiceStatus,
      (limit) => ({ invoices: [invoice(limit - 1)] }),
    ],
    [
      'waypoints',
      ROUTE_PAGE_SIZES.waypoints,
      listWaypoints,
      (limit) => ({ waypoints: rows(limit, waypoint) }),
    ],
    [
      'accounting records',
      ROUTE_PAGE_SIZES.accountingRecords,
      getRouteAccounting,
      (limit) => ({
        records: rows(limit, () => ({
          id: id(),
          driver_id: id(),
          cash_received_cents: Number.MAX_SAFE_INTEGER,
          cash_container_id: id(),
        })),
      }),
    ],
    [
      'routes of a date, each listing 2,000 waypoint ids',
      ROUTE_PAGE_SIZES.routesOfDate,
      findRoutesByDate,
      (limit) => ({ routes: rows(limit, () => route(MAX_WAYPOINTS)) }),
    ],
    [
      'driver routes: the page cuts two routes of 2,000 waypoints',
      DRIVER_ROUTE_WAYPOINTS_PAGE,
      listDriverRoutes,
      (limit) => {
        const waypoints = rows(limit, () => ({ ...waypoint(), invoices: [invoice(ITEMS_PER_WAYPOINT)] }));
        const half = Math.ceil(limit / 2);
        return {
          routes: [
            { ...route(MAX_WAYPOINTS), waypoints: waypoints.slice(0, half) },
            { ...route(MAX_WAYPOINTS), waypoints: waypoints.slice(half) },
          ],
        };
      },
    ],
    [
      'attempt analytics',
      ATTEMPT_ANALYTICS_PAGE,
      getAttemptAnalytics,
      (limit) => ({ attempt_analytics: rows(limit, () => ({ ...WORST_ATTEMPT_ANALYTICS })) }),
    ],
    [
      'webhook delivery attempts',
      DELIVERY_ATTEMPTS_PAGE,
      listWebhookDeliveries,
      (limit) => ({ deliveries: rows(limit, delivery) }),
    ],
  ];

  it.each(cases)('%s', (_name, size, endpoint, page) => {
    expect(size.defaultLimit).toBeLessThanOrEqual(size.maxLimit);
    expect(responseBytes(endpoint, page(size.maxLimit))).toBeLessThan(PAGE_BUDGET_BYTES);
  });

  it('sizes attempt analytics by every column', () => {
    expect(Object.keys(WORST_ATTEMPT_ANALYTICS)).toEqual(Object.keys(ATTEMPT_ANALYSIS_COLUMNS));
  });

  it('declares each list’s limits in its query schema', () => {
    const paged: [EndpointDefinition, PageSize][] = [
      [getInvoiceStatus, ROUTE_PAGE_SIZES.invoiceRows],
      [listWaypoints, ROUTE_PAGE_SIZES.waypoints],
      [getRouteAccounting, ROUTE_PAGE_SIZES.accountingRecords],
      [findRoutesByDate, ROUTE_PAGE_SIZES.routesOfDate],
      [listDriverRoutes, DRIVER_ROUTE_WAYPOINTS_PAGE],
      [getAttemptAnalytics, ATTEMPT_ANALYTICS_PAGE],
      [listWebhookDeliveries, DELIVERY_ATTEMPTS_PAGE],
    ];
    for (const [endpoint, size] of paged) {
      const query = endpoint.request.query as z.ZodType;
      expect(query.parse({})).toEqual({ limit: size.defaultLimit });
      expect(query.safeParse({ limit: String(size.maxLimit) }).success).toBe(true);
      expect(query.safeParse({ limit: String(size.maxLimit + 1) }).success).toBe(false);
    }
  });
});
