import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ATTEMPT_ANALYTICS_PAGE, getAttemptAnalytics } from '../../functions/api/analytics/index';
import { bundled, type EndpointDefinition } from '../../functions/api/define';
import {
  DRIVER_ROUTE_WAYPOINTS_PAGE,
  listDriverRoutes,
  MAX_ATTEMPT_SCANS,
} from '../../functions/api/driver-app/index';
import {
  findRoutesByDate,
  getInvoiceStatus,
  getRouteAccounting,
  listWaypoints,
  ROUTE_PAGE_SIZES,
} from '../../functions/api/routes/index';
import { DELIVERY_ATTEMPTS_PAGE, listWebhookDeliveries } from '../../functions/api/webhooks/index';
import { ATTEMPT_ANALYSIS_COLUMNS } from '../../functions/domain/analytics-columns';
import { MAX_PAGE_ROWS, type PageSize } from '../../functions/models/common';
import { REQUIREMENT_LIMITS } from '../../functions/models/delivery-requirements';
import { IMPORT_LIMITS } from '../../functions/models/import-model';
import { successResponse } from '../../functions/shared/envelope';
import { countWithinBudget, PAGE_BYTE_BUDGET, proxyBytesOf } from '../../functions/shared/limits';
import type * as z from '../../functions/shared/zod';

/**
 * A page of worst-case rows, cut by the byte budget as the lists cut it, must stay under Lambda's 6 MB
 * response limit, measured as Lambda measures it: the JSON of the proxy result, whose body is the
 * envelope's JSON escaped once more. Worst-case rows have every text at the maximum length its schema
 * allows, written with `"`: JSON escapes it twice, so it weighs 4 bytes (more than any UTF-8 character).
 */
const LAMBDA_RESPONSE_LIMIT_BYTES = 6_291_556;
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
  display_unit_of_measure: text(32),
  total_price_cents: -999_999_999_999,
  currency: 'EUR',
  barcodes: Array.from({ length: REQUIREMENT_LIMITS.barcodes }, () => text(128)),
  status: { status: 'SUCCESSFUL', timestamp, reason },
});

// The longest rules a stop can have: `false` and `null` are longer than `true` and an age (which are not
// available yet, and refused).
const requirements = { photos: 10, signature: false, pin: false, minimum_age: null, scan_items: false };

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
  proof_ids: Array.from({ length: 20 }, () => `prf_${'f'.repeat(16)}`),
  signer_name: text(200),
  scans: Array.from({ length: MAX_ATTEMPT_SCANS }, () => ({
    value: text(128),
    timestamp,
    item_id: id(),
    matched_item_id: id(),
  })),
  requirements,
  pin_verified: true,
  age_check: { method: 'ID_CHECKED', result: 'OLD_ENOUGH', timestamp },
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
  requirements,
  attempts: [attempt(ITEMS_PER_WAYPOINT)],
  arrived_timestamp: timestamp,
  departed_timestamp: timestamp,
  // Detected visits have no limit but time: 20 is a day of coming back every half hour.
  visits: Array.from({ length: 20 }, () => ({ arrived_timestamp: timestamp, departed_timestamp: timestamp })),
});

/** As the route reads answer it: with its tracking link, under a custom domain of the longest name DNS takes. */
const routeWaypoint = () => ({
  ...waypoint(),
  tracking_url: `https://${'d'.repeat(253)}/${'s'.repeat(128)}/track/${'t'.repeat(22)}`,
  // The longest masked recipient: a name of 200 characters, 15 digits, an address's domain of 253.
  recipient: {
    name: text(200),
    phone: `+1234${'•'.repeat(7)}5678`,
    email: `a•••@${'d'.repeat(253)}`,
    locale: 'x'.repeat(35),
  },
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
  visit_start_timestamp: '2026-11-22T23:59:59-03:00',
  visit_start_epoch_ms: timestamp,
  visit_meters_from_customer: 20_037_509,
  aggregate_visit_status: 'VISIT_LATER',
  waypoint_time_windows: Array(20).fill('2026-11-22T23:59:59-03:00/2026-11-23T23:59:59-03:00').join('; '),
  visit_timeliness: 'NO_WINDOW',
  items_successful: 999_999,
  items_failed: 999_999,
  proof_count: 20,
  signer_name: text(200),
  pin_verified: 'FALSE',
  age_check_result: 'OLD_ENOUGH',
  arrival_epoch_ms: timestamp,
  dwell_seconds: 999_999_999,
  arrival_timeliness: 'NO_WINDOW',
};

/** Delivery ids are the service's own: `dlv_`, 13 digits and 16 hex digits. */
const deliveryId = `dlv_${'9'.repeat(13)}${'f'.repeat(16)}`;

const delivery = () => ({
  delivery_id: deliveryId,
  redelivery_of: deliveryId,
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
  const schema = bundled(endpoint.responses)[200]?.data as z.ZodMiniType;
  expect(schema.safeParse(data).success).toBe(true);
  return Buffer.byteLength(JSON.stringify(successResponse(200, { ...(data as object), next_token: token })));
}

/** The longest `next_token` a list returns: the key of a route's row, every id at its maximum length. */
const token = Buffer.from(
  JSON.stringify({ pk: id(), sk: id(), gsi2pk: id(), gsi2sk: id() }).replace(/"/g, '\u{10FFFF}'),
).toString('base64url');

const rows = <T>(count: number, row: () => T) => Array.from({ length: count }, row);

/** How many of `maxLimit` copies of `row` a page keeps: as many as the byte budget holds. */
const rowsKept = (maxLimit: number, row: unknown, budget = PAGE_BYTE_BUDGET) =>
  countWithinBudget(Array(maxLimit).fill(row), proxyBytesOf, { budget });

const driverWaypoint = () => ({ ...waypoint(), invoices: [invoice(ITEMS_PER_WAYPOINT)] });
const driverRouteHeader = () => ({ ...route(MAX_WAYPOINTS), waypoints: [] });

describe('the byte budget keeps a page of worst-case rows under Lambda’s 6 MB response limit', () => {
  it('weighs a row at least as much as it adds to the proxy result, whatever its text', () => {
    const added = (row: unknown) =>
      Buffer.byteLength(JSON.stringify(successResponse(200, { rows: [row, row] }))) -
      Buffer.byteLength(JSON.stringify(successResponse(200, { rows: [row] })));
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (row) => {
        expect(proxyBytesOf(row)).toBeGreaterThanOrEqual(added(row));
      }),
      { numRuns: 2000 },
    );
    for (const text of ['"', '\\', '\u0000', '\u001f', '\ud800', '\u2028', '\u{10FFFF}', 'é']) {
      expect(proxyBytesOf({ text: text.repeat(1000) })).toBeGreaterThanOrEqual(
        added({ text: text.repeat(1000) }),
      );
    }
    // Doubling is exact for the worst case (but for the comma, which is not escaped): no smaller factor is safe.
    expect(added(text(1000))).toBe(proxyBytesOf(text(1000)) - 1);
  });

  const cases: [string, PageSize, EndpointDefinition, (budget?: number) => unknown][] = [
    [
      'invoice status: every row an invoice with 50 name attributes, plus one cut invoice repeated',
      ROUTE_PAGE_SIZES.invoiceRows,
      getInvoiceStatus,
      (budget) => {
        const kept = rowsKept(ROUTE_PAGE_SIZES.invoiceRows.maxLimit, invoice(0), budget);
        return { invoices: rows(kept + 1, () => invoice(0)) };
      },
    ],
    [
      'invoice status: every row an item',
      ROUTE_PAGE_SIZES.invoiceRows,
      getInvoiceStatus,
      (budget) => ({
        invoices: [invoice(rowsKept(ROUTE_PAGE_SIZES.invoiceRows.maxLimit, item(), budget))],
      }),
    ],
    [
      'waypoints, each with its share of a full route',
      ROUTE_PAGE_SIZES.waypoints,
      listWaypoints,
      (budget) => ({
        waypoints: rows(
          rowsKept(ROUTE_PAGE_SIZES.waypoints.maxLimit, routeWaypoint(), budget),
          routeWaypoint,
        ),
      }),
    ],
    [
      'routes of a date, each listing 2,000 waypoint ids',
      ROUTE_PAGE_SIZES.routesOfDate,
      findRoutesByDate,
      (budget) => ({
        routes: rows(rowsKept(ROUTE_PAGE_SIZES.routesOfDate.maxLimit, route(MAX_WAYPOINTS), budget), () =>
          route(MAX_WAYPOINTS),
        ),
      }),
    ],
    [
      'driver routes: the page cuts two routes of 2,000 waypoints',
      DRIVER_ROUTE_WAYPOINTS_PAGE,
      listDriverRoutes,
      (budget = PAGE_BYTE_BUDGET) => {
        const headers = 2 * proxyBytesOf(driverRouteHeader());
        const kept = Math.max(
          1,
          rowsKept(DRIVER_ROUTE_WAYPOINTS_PAGE.maxLimit, driverWaypoint(), budget - headers),
        );
        const waypoints = rows(kept, driverWaypoint);
        const half = Math.ceil(kept / 2);
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
      (budget) => ({
        attempt_analytics: rows(
          rowsKept(ATTEMPT_ANALYTICS_PAGE.maxLimit, WORST_ATTEMPT_ANALYTICS, budget),
          () => ({
            ...WORST_ATTEMPT_ANALYTICS,
          }),
        ),
      }),
    ],
  ];

  it.each(cases)('%s', (_name, size, endpoint, page) => {
    expect(size.defaultLimit).toBeLessThanOrEqual(size.maxLimit);
    expect(responseBytes(endpoint, page())).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  });

  it.each(cases)(
    '%s: a page holds its first row however large, and it fits alone',
    (_name, _size, endpoint, page) => {
      // With no budget left a page keeps its first row only (the driver's page: its first waypoint).
      expect(responseBytes(endpoint, page(0))).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
    },
  );

  it('ends pages of large rows early, and gives realistic rows full pages', () => {
    expect(rowsKept(MAX_PAGE_ROWS, invoice(0))).toBeLessThan(MAX_PAGE_ROWS);
    expect(rowsKept(MAX_PAGE_ROWS, route(MAX_WAYPOINTS))).toBeLessThan(10);
    const realisticItem = {
      id: 'item-000001',
      sku: 'SKU-12345',
      name: 'Sparkling water 6 x 1.5 l',
      quantity: 2,
      display_unit_of_measure: 'CASE OF 12',
      total_price_cents: 1299,
      currency: 'EUR',
      status: null,
    };
    expect(rowsKept(MAX_PAGE_ROWS, realisticItem)).toBe(MAX_PAGE_ROWS);
  });

  it('keeps full pages of the lists whose rows stay small within the budget', () => {
    const accountingRecord = {
      id: id(),
      driver_id: id(),
      cash_received_cents: Number.MAX_SAFE_INTEGER,
      cash_container_id: id(),
    };
    const small: [PageSize, EndpointDefinition, unknown][] = [
      [
        ROUTE_PAGE_SIZES.accountingRecords,
        getRouteAccounting,
        { records: rows(ROUTE_PAGE_SIZES.accountingRecords.maxLimit, () => accountingRecord) },
      ],
      [
        DELIVERY_ATTEMPTS_PAGE,
        listWebhookDeliveries,
        { deliveries: rows(DELIVERY_ATTEMPTS_PAGE.maxLimit, delivery) },
      ],
    ];
    for (const [size, endpoint, page] of small) {
      const [list] = Object.values(page as object) as unknown[][];
      expect(list?.reduce<number>((sum, row) => sum + proxyBytesOf(row), 0)).toBeLessThan(PAGE_BYTE_BUDGET);
      expect(size.maxLimit).toBe(MAX_PAGE_ROWS);
      expect(responseBytes(endpoint, page)).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
    }
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
      const query = endpoint.request.query as z.ZodMiniType;
      expect(query.parse({})).toEqual({ limit: size.defaultLimit });
      expect(query.safeParse({ limit: String(size.maxLimit) }).success).toBe(true);
      expect(query.safeParse({ limit: String(size.maxLimit + 1) }).success).toBe(false);
    }
  });
});
