import type { AccountingRecord } from '../functions/data/accounting';
import type { Attempt, Reason } from '../functions/data/attempts';
import type { InvoiceRow, WaypointRow } from '../functions/data/route-rows';
import type { RouteHeader } from '../functions/data/routes';
import type { RouteFacts } from '../functions/domain/analytics';
import { randomOf } from '../functions/domain/optimizer/tour';
import { round } from './stats';

/** The analytics bench's data (bench/analytics.ts): deterministic routes of a DC, with their attempts and accounting. */

/** 80 customer stops, every 4th visited twice (first VISIT_LATER): 100 attempts per route. */
export const WAYPOINTS_PER_ROUTE = 80;
const MINUTE = 60_000;

export type AnalyticsModule = typeof import('../functions/domain/analytics');

export interface BenchDc {
  dcId: string;
  name: string;
  timeZone: string;
  etaSpeedKmh?: number;
}

/** Deterministic pseudo-random numbers in [0, 1): the optimizer's mulberry32, seeded by FNV-1a of the text. */
export function prng(seedText: string): () => number {
  let hash = 2166136261;
  for (let i = 0; i < seedText.length; i++) hash = Math.imul(hash ^ seedText.charCodeAt(i), 16777619);
  return randomOf(hash);
}

export const FIRST_NAMES = [
  'Maria',
  'James',
  'Aisha',
  'Dmitri',
  'Guadalupe',
  'Wei',
  'Olusegun',
  'Katarzyna',
  'Tom',
];
export const LAST_NAMES = [
  'Gonzalez',
  'Johnson',
  'Okafor',
  'Nguyen',
  'Kowalski',
  'Hernandez',
  'Smith',
  'Patel',
];
export const BUSINESSES = [
  'Lakeside Hardware & Supply',
  'Nguyen Family Market, LLC',
  "O'Malley's Pub",
  'Pilsen Corner Grocery',
  'Wicker Park Coffee Roasters',
  'Bridgeport Pharmacy',
  'Hyde Park Deli & Catering',
  'Logan Square Bakery, Inc.',
  'The "Blue Door" Diner',
  'Rogers Park Liquors',
];
export const NEIGHBORHOODS = ['North', 'South', 'West Loop', 'Lakeview', 'Pilsen', 'Uptown', 'Austin'];
export const FAILURES: readonly Reason[] = [
  { code: 'CUSTOMER_ABSENT', message: 'Customer not at the address' },
  { code: 'REFUSED', message: 'Customer refused the delivery' },
  { code: 'DAMAGED', message: 'Goods damaged in transit' },
];

/** Epoch ms of a DC-local wall time (minutes after midnight) on a date. */
export function zonedEpoch(
  analytics: AnalyticsModule,
  date: string,
  minutes: number,
  timeZone: string,
): number {
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  const guess = Date.parse(`${date}T${hh}:${mm}:00Z`);
  const local = analytics.localIsoDateTime(guess, timeZone).slice(0, 19); // without its offset
  return guess - (Date.parse(`${local}Z`) - guess);
}

/**
 * The facts of one finished route (deterministic per date and index): 80 Chicago stops with 1-4 items on
 * one invoice each (a third paid cash), time windows on most stops, 100 attempts (every 4th stop first
 * VISIT_LATER and visited again at the end; some FAILED, some with one item failed), GPS on 90 % of them,
 * the driver's trace at the visits. The analytics rows come from attemptAnalytics/routeAnalytics.
 */
export function routeFacts(
  analytics: AnalyticsModule,
  dc: BenchDc,
  accountId: string,
  date: string,
  index: number,
) {
  const rand = prng(`${date}#${index}`);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)] as T;
  const compact = date.replaceAll('-', '');
  const routeNo = String(index).padStart(4, '0');
  const routeId = `R-${compact}-${routeNo}`;
  const startTime = zonedEpoch(analytics, date, 7 * 60 + (index % 4) * 15, dc.timeZone);
  const depot = { latitude: 41.8369, longitude: -87.6847 };
  const driverId = `drv-${String(index % 180).padStart(4, '0')}`;
  const hex = (length: number) => Array.from({ length }, () => Math.floor(rand() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;

  const waypoints: WaypointRow[] = [];
  const invoices: InvoiceRow[] = [];
  const planned: number[] = [];
  const morning = [
    {
      start: zonedEpoch(analytics, date, 8 * 60, dc.timeZone),
      end: zonedEpoch(analytics, date, 12 * 60, dc.timeZone),
    },
    {
      start: zonedEpoch(analytics, date, 13 * 60, dc.timeZone),
      end: zonedEpoch(analytics, date, 17 * 60, dc.timeZone),
    },
  ];
  for (let i = 0; i < WAYPOINTS_PER_ROUTE; i++) {
    const id = `WP-${compact}-${routeNo}-${String(i + 1).padStart(3, '0')}`;
    const arrival = startTime + (20 + i * 6) * MINUTE;
    planned.push(arrival);
    const kind = rand();
    const windowStart = Math.floor((arrival - 45 * MINUTE) / (30 * MINUTE)) * 30 * MINUTE;
    const timeWindows =
      kind < 0.6
        ? [{ start: windowStart, end: windowStart + (rand() < 0.5 ? 2 : 3) * 60 * MINUTE }]
        : kind < 0.8
          ? morning
          : [];
    const invoiceId = `INV-${compact}${routeNo}${String(i + 1).padStart(3, '0')}`;
    waypoints.push({
      sequence: i,
      id,
      customerId: `C-${String(Math.floor(rand() * 10_000_000)).padStart(7, '0')}`,
      name: `${pick(BUSINESSES)} #${1 + Math.floor(rand() * 40)}`,
      address: `${100 + Math.floor(rand() * 9000)} W ${pick(['Madison', 'Division', 'Belmont', 'Cermak'])} St`,
      location: {
        latitude: round(41.75 + rand() * 0.2, 6),
        longitude: round(-87.75 + rand() * 0.15, 6),
      },
      serviceTimeMinutes: 5,
      timeWindows,
      invoiceIds: [invoiceId],
    });
    invoices.push({
      id: invoiceId,
      waypointId: id,
      ...(rand() < 0.33 ? { paymentMethod: 'CASH' } : {}),
      nameAttributes: [],
      items: Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, k) => ({
        id: `${invoiceId}-${k + 1}`,
        quantity: 1 + Math.floor(rand() * 6),
        totalPriceCents: 199 + Math.floor(rand() * 9800),
        currency: 'USD',
      })),
    });
  }

  const attempts: Attempt[] = [];
  const attempt = (i: number, timestamp: number, status: Attempt['status'], items: Attempt['items']) => {
    const waypoint = waypoints[i] as WaypointRow;
    attempts.push({
      id: uuid(),
      waypointId: waypoint.id,
      sequence: i,
      timestamp,
      status,
      proofIds: [],
      ...(status === 'FAILED' ? { reason: pick(FAILURES) } : {}),
      ...(rand() < 0.9
        ? {
            location: {
              latitude: round(waypoint.location.latitude + (rand() - 0.5) * 0.001, 6),
              longitude: round(waypoint.location.longitude + (rand() - 0.5) * 0.001, 6),
            },
          }
        : {}),
      items,
      driverId,
      recordedAt: timestamp + 2000,
    });
  };
  for (let i = 0; i < WAYPOINTS_PER_ROUTE; i++) {
    const at = (planned[i] as number) + Math.round((rand() * 60 - 20) * MINUTE);
    const outcome = rand();
    const firstItem = (invoices[i] as InvoiceRow).items[0]?.id as string;
    if (i % 4 === 3) attempt(i, at, 'VISIT_LATER', []);
    else if (outcome < 0.85) attempt(i, at, 'SUCCESSFUL', []);
    else if (outcome < 0.95) attempt(i, at, 'FAILED', []);
    else attempt(i, at, 'SUCCESSFUL', [{ id: firstItem, status: 'FAILED', reason: pick(FAILURES) }]);
  }
  const lastPlanned = planned[planned.length - 1] as number;
  for (let i = 3; i < WAYPOINTS_PER_ROUTE; i += 4)
    attempt(i, lastPlanned + (30 + i) * MINUTE, rand() < 0.85 ? 'SUCCESSFUL' : 'FAILED', []);
  attempts.sort((a, b) => a.timestamp - b.timestamp);

  const finalizedTimestamp = (attempts.at(-1) as Attempt).timestamp + 35 * MINUTE;
  const cash = invoices
    .filter((invoice) => invoice.paymentMethod === 'CASH')
    .flatMap((invoice) => invoice.items.map((item) => item.totalPriceCents));
  const accountingRecords: AccountingRecord[] = [
    {
      id: `cash-${routeId}`,
      driverId,
      cashReceivedCents: Math.round(cash.reduce((total, cents) => total + cents, 0) * 0.9),
      cashContainerId: `BAG-${routeNo}`,
      createdAt: finalizedTimestamp,
    },
  ];
  const route: RouteHeader = {
    accountId,
    dcId: dc.dcId,
    routeId,
    name: `Chicago ${pick(NEIGHBORHOODS)} ${index + 1} ${index % 2 ? 'PM' : 'AM'}`,
    startTime,
    localDate: date,
    assignedDriverId: driverId,
    vehicleId: `TRK-${String(index % 120).padStart(3, '0')}`,
    startWarehouse: { id: 'DEPOT-CHI-1', name: 'Chicago South depot', location: depot },
    endWarehouse: { id: 'DEPOT-CHI-1', name: 'Chicago South depot', location: depot },
    waypointIds: waypoints.map((waypoint) => waypoint.id),
    isActive: false,
    isFinalized: true,
    startedTimestamp: startTime + 4 * MINUTE,
    finalizedTimestamp,
    version: 2 + attempts.length,
    importTxid: `imp_${hex(20)}`,
    createdAt: startTime - 86_400_000,
  };
  const facts: RouteFacts = {
    dc,
    route,
    driverName: `${pick(FIRST_NAMES)} ${pick(LAST_NAMES)}`,
    waypoints,
    invoices,
    attempts,
    accountingRecords,
    trace: attempts.flatMap((a) => (a.location ? [{ timestamp: a.timestamp - MINUTE, ...a.location }] : [])),
    visits: attempts.map((a) => ({
      waypointId: a.waypointId,
      arrivedAt: a.timestamp - 2 * MINUTE,
      departedAt: a.timestamp + 3 * MINUTE,
    })),
  };
  return { routeId, facts };
}
