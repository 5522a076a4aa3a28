import type { AccountingRecord } from '../../functions/data/accounting';
import type { Attempt } from '../../functions/data/attempts';
import type { InvoiceRow, WaypointRow } from '../../functions/data/route-rows';
import type { RouteHeader } from '../../functions/data/routes';
import type { RouteFacts } from '../../functions/domain/analytics';

/*
 * The routes the analytics unit tests compute rows of (test/unit/analytics*.test.ts), and builders for others.
 * great-circle distance is R x Δlat: with R = 6371.0088 km, 0.01° of latitude is 1111.9508 m.
 * Planned legs add the road factor 1.3; a leg of n x 0.01° at v km/h takes
 * round(n x 1.1119508 km x 1.3 / v x 3,600,000) ms.
 */

export const header = (
  fields: Partial<RouteHeader> & Pick<RouteHeader, 'routeId' | 'startTime'>,
): RouteHeader => ({
  accountId: 'acct-1',
  dcId: 'dc-1',
  name: 'A route',
  localDate: '2025-01-01', // deliberately wrong: the analytics derive the date from startTime
  waypointIds: [],
  isActive: true,
  isFinalized: true,
  version: 7,
  importTxid: 'tx-1',
  createdAt: 0,
  ...fields,
});

export const waypoint = (
  sequence: number,
  id: string,
  latitude: number,
  longitude: number,
  fields: Partial<WaypointRow> = {},
): WaypointRow => ({
  sequence,
  id,
  location: { latitude, longitude },
  serviceTimeMinutes: 0,
  timeWindows: [],
  invoiceIds: [],
  ...fields,
});

export const invoice = (
  id: string,
  waypointId: string,
  paymentMethod: string | undefined,
  items: [id: string, totalPriceCents: number][],
  currency = 'USD',
): InvoiceRow => ({
  id,
  waypointId,
  ...(paymentMethod ? { paymentMethod } : {}),
  nameAttributes: [],
  items: items.map(([itemId, totalPriceCents]) => ({
    id: itemId,
    quantity: 1,
    totalPriceCents,
    currency,
    // Stored statuses are ignored: this one contradicts every attempt below.
    status: { status: 'FAILED', timestamp: 0 },
  })),
});

export const attempt = (
  id: string,
  waypointId: string,
  timestamp: number,
  status: Attempt['status'],
  fields: Partial<Attempt> = {},
): Attempt => ({
  id,
  waypointId,
  sequence: 0,
  timestamp,
  status,
  items: [],
  proofIds: [],
  driverId: 'drv-1',
  recordedAt: timestamp,
  ...(status === 'FAILED' ? { reason: { code: 'CLOSED', message: 'Store closed' } } : {}),
  ...fields,
});

export const record = (id: string, cashReceivedCents: number): AccountingRecord => ({
  id,
  driverId: 'drv-1',
  cashReceivedCents,
  cashContainerId: 'bag-1',
  createdAt: 0,
});

// ---- Chicago: every customer visited (CDT = UTC-5 in June) ----

export const CHI_LNG = -87.6;
export const chicagoFacts = (): RouteFacts => ({
  dc: { dcId: 'dc-chi', name: 'Chicago DC', timeZone: 'America/Chicago', etaSpeedKmh: 40 },
  route: header({
    routeId: 'r-chi',
    name: 'Monday north',
    startTime: Date.UTC(2025, 5, 2, 13, 0), // 08:00 CDT
    assignedDriverId: 'drv-1',
    startWarehouse: { id: 'wh-a', location: { latitude: 41.8, longitude: CHI_LNG } },
    endWarehouse: { id: 'wh-b', location: { latitude: 41.79, longitude: CHI_LNG } },
    startedTimestamp: Date.UTC(2025, 5, 2, 12, 55), // 07:55 CDT
    finalizedTimestamp: Date.UTC(2025, 5, 2, 15, 30), // 10:30 CDT
  }),
  driverName: 'Dana Driver',
  waypoints: [
    waypoint(0, 'wp-1', 41.82, CHI_LNG, { customerId: 'c-1', name: 'Ace Grocery', serviceTimeMinutes: 5 }),
    waypoint(1, 'wp-2', 41.85, CHI_LNG, {
      customerId: 'c-2',
      name: 'Bay Market',
      serviceTimeMinutes: 10,
      timeWindows: [{ start: Date.UTC(2025, 5, 2, 14, 0), end: Date.UTC(2025, 5, 2, 15, 0) }], // 09:00-10:00
    }),
    waypoint(2, 'wp-3', 41.87, CHI_LNG, {
      customerId: 'c-3',
      name: 'Cove Deli',
      // Out of order on purpose: 10:00-11:00 and 09:00-09:30.
      timeWindows: [
        { start: Date.UTC(2025, 5, 2, 15, 0), end: Date.UTC(2025, 5, 2, 16, 0) },
        { start: Date.UTC(2025, 5, 2, 14, 0), end: Date.UTC(2025, 5, 2, 14, 30) },
      ],
    }),
  ],
  invoices: [
    invoice('inv-1', 'wp-1', 'CASH', [
      ['A1', 1000],
      ['A2', 250],
    ]),
    invoice('inv-2', 'wp-2', 'CHECK', [
      ['B1', 500],
      ['B2', 500],
      ['B3', 500],
    ]),
    invoice('inv-3', 'wp-3', 'CASH', [['C1', 799]]),
  ],
  attempts: [
    // 08:10, 0.0001° north of the customer: 11.12 m.
    attempt('at-1', 'wp-1', Date.UTC(2025, 5, 2, 13, 10), 'SUCCESSFUL', {
      location: { latitude: 41.8201, longitude: CHI_LNG },
      proofIds: ['prf_00000000000000a1', 'prf_00000000000000a2'],
      signerName: 'Zoë Ålund',
      pinVerified: true,
      ageCheck: { method: 'ID_CHECKED', result: 'OLD_ENOUGH', timestamp: Date.UTC(2025, 5, 2, 13, 10) },
    }),
    // 08:50, before the 09:00 window; B1 delivered, B2 and B3 take the attempt's FAILED.
    attempt('at-2', 'wp-2', Date.UTC(2025, 5, 2, 13, 50), 'FAILED', {
      items: [{ id: 'B1', status: 'SUCCESSFUL' }],
    }),
    // 09:40, between the windows; at the customer.
    attempt('at-3', 'wp-3', Date.UTC(2025, 5, 2, 14, 40), 'VISIT_LATER', {
      location: { latitude: 41.87, longitude: CHI_LNG },
    }),
    // 10:05, in the second window; 0.0005° off: 55.60 m.
    attempt('at-4', 'wp-3', Date.UTC(2025, 5, 2, 15, 5), 'SUCCESSFUL', {
      location: { latitude: 41.8705, longitude: CHI_LNG },
    }),
  ],
  accountingRecords: [record('acc-1', 1500), record('acc-2', 300)],
  trace: [
    { timestamp: Date.UTC(2025, 5, 2, 12, 55), latitude: 41.8, longitude: CHI_LNG },
    { timestamp: Date.UTC(2025, 5, 2, 13, 30), latitude: 41.85, longitude: CHI_LNG },
    { timestamp: Date.UTC(2025, 5, 2, 15, 30), latitude: 41.82, longitude: CHI_LNG },
  ],
  visits: [
    // 08:07-08:14, no window: 420 s.
    { waypointId: 'wp-1', arrivedAt: Date.UTC(2025, 5, 2, 13, 7), departedAt: Date.UTC(2025, 5, 2, 13, 14) },
    // 08:48, before the 09:00 window.
    {
      waypointId: 'wp-2',
      arrivedAt: Date.UTC(2025, 5, 2, 13, 48),
      departedAt: Date.UTC(2025, 5, 2, 13, 55, 30),
    },
    // 09:38, between the windows; then back at 10:02, in the second, not left when the route finished.
    { waypointId: 'wp-3', arrivedAt: Date.UTC(2025, 5, 2, 14, 38), departedAt: Date.UTC(2025, 5, 2, 14, 45) },
    { waypointId: 'wp-3', arrivedAt: Date.UTC(2025, 5, 2, 15, 2) },
  ],
});

// ---- Tokyo: no warehouses, no driver, never started, one customer unvisited (JST = UTC+9) ----

export const TYO_LNG = 139.7;
export const tokyoFacts = (): RouteFacts => ({
  dc: { dcId: 'dc-tyo', name: 'Tokyo DC', timeZone: 'Asia/Tokyo' },
  route: header({
    routeId: 'r-tyo',
    name: 'Tuesday bay',
    startTime: Date.UTC(2025, 5, 1, 23, 0), // 2025-06-02 08:00 JST, still June 1st in UTC
    finalizedTimestamp: Date.UTC(2025, 5, 2, 9, 0), // 18:00 JST
  }),
  driverName: null,
  visits: [],
  waypoints: [
    waypoint(0, 't-1', 35.6, TYO_LNG, { customerId: 'k-1', name: 'Kiosk One' }),
    // No customer id or name; a window from 22:00 to 02:00 the next day.
    waypoint(1, 't-2', 35.63, TYO_LNG, {
      timeWindows: [{ start: Date.UTC(2025, 5, 2, 13, 0), end: Date.UTC(2025, 5, 2, 17, 0) }],
    }),
    waypoint(2, 't-3', 35.65, TYO_LNG, { customerId: 'k-3', name: 'Kiosk Three', serviceTimeMinutes: 15 }),
  ],
  invoices: [
    invoice('inv-t1', 't-1', 'CASH', [
      ['T1', 300],
      ['T2', 200],
    ]),
    invoice('inv-t2', 't-2', undefined, [['T3', 1000]]),
    invoice('inv-t3', 't-3', 'CASH', [['T4', 50]]),
  ],
  attempts: [
    // 09:15:30 JST, at the customer; no item listed: both take FAILED.
    attempt('ta-1', 't-1', Date.UTC(2025, 5, 2, 0, 15, 30), 'FAILED', {
      location: { latitude: 35.6, longitude: TYO_LNG },
    }),
    // 09:40 JST, before the 22:00 window; VISIT_LATER decides only the item it lists.
    attempt('ta-2', 't-2', Date.UTC(2025, 5, 2, 0, 40), 'VISIT_LATER', {
      items: [{ id: 'T3', status: 'SUCCESSFUL' }],
    }),
  ],
  accountingRecords: [],
  trace: [],
});

/** The DC, route and driver columns every analytics row of chicagoFacts() carries. */
export const CHICAGO_IDENTITY = {
  dc_id: 'dc-chi',
  dc_name: 'Chicago DC',
  dc_time_zone: 'America/Chicago',
  route_id: 'r-chi',
  route_name: 'Monday north',
  planned_route_start_date: '2025-06-02',
  driver_id: 'drv-1',
  driver_name: 'Dana Driver',
};

/** The DC, route and driver columns every analytics row of tokyoFacts() carries: it has no driver. */
export const TOKYO_IDENTITY = {
  dc_id: 'dc-tyo',
  dc_name: 'Tokyo DC',
  dc_time_zone: 'Asia/Tokyo',
  route_id: 'r-tyo',
  route_name: 'Tuesday bay',
  planned_route_start_date: '2025-06-02',
  driver_id: null,
  driver_name: null,
};
