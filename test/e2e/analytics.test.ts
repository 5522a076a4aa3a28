import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import * as analytics from '../../functions/api/analytics/index';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { deleteRouteAnalytics, listRouteAnalytics } from '../../functions/data/analytics';
import { putPendingDownload } from '../../functions/data/download-requests';
import { createAccountWithUsageKey } from '../../functions/domain/usage-keys';
import { DESIGN_ATTEMPT_COLUMNS, DESIGN_ROUTE_COLUMNS } from '../support/analytics-columns';
import { functionOf } from '../support/cdk';
import { type CallOptions, call, expectError, expectSuccess, readAllPages } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { importRoute } from '../support/routes';

// Exports go through the analytics queue and its worker: on a loaded 2-core CI machine a wait can pass 30 s.
vi.setConfig({ testTimeout: 90_000 });

/*
 * Analytics end to end (API §2 and §4.5, DESIGN §6): computed when a route is finished, read per route,
 * exported per DC and DC-local date as CSV files in the bucket. Every expected number of the driven route
 * is worked out by hand: all its places lie on the meridian 87.65° W, where 0.01° of latitude is
 * 1111.95 m (R = 6371.0088 km); planned legs add the road factor 1.3 and drive at 30 km/h, so a leg of
 * 0.01° takes 173.464 s.
 */

type Value = string | number | null;
type Row = Record<string, Value>;
type AnalyticsType = 'ROUTE_ANALYTICS' | 'ATTEMPT_ANALYTICS';
type ColumnDefinitions = Record<string, { column_name: string; column_description: string }>;
interface DownloadFile {
  file_type: string;
  download_link: string;
  expiration_timestamp: number;
  download_type: AnalyticsType;
}

/** Small files, so that a handful of rows splits (read by the export worker when it loads). */
const ROWS_PER_FILE = 3;

let api: TestApi;
let acme: { accountId: string; key: string };
let globex: { accountId: string; key: string };
let routeColumns: string[];
let attemptColumns: string[];

const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, options);
const asAcme = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: acme.key, body });

// ---------------------------------------------------------------------------------------------------
// Time: DC-local wall clocks, written independently of the service's formatters
// ---------------------------------------------------------------------------------------------------

const DAY = 86_400_000;
const CHICAGO = 'America/Chicago';
const TOKYO = 'Asia/Tokyo';

/** 'YYYY-MM-DD HH:MM:SS' of an instant in a zone (the sv-SE locale writes dates that way). */
const wall = (epoch: number, zone: string) => new Date(epoch).toLocaleString('sv-SE', { timeZone: zone });
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const utcDate = (epoch: number) => new Date(epoch).toISOString().slice(0, 10);

/** The instant a zone's clocks show `date time` ('HH:MM'). */
function zoned(date: string, time: string, zone: string): number {
  const target = Date.parse(`${date}T${time}:00Z`);
  let epoch = target;
  for (let round = 0; round < 3; round++) {
    epoch += target - Date.parse(`${wall(epoch, zone).replace(' ', 'T')}Z`);
  }
  if (wall(epoch, zone) !== `${date} ${time}:00`) throw new Error(`${date} ${time} is not a time in ${zone}`);
  return epoch;
}

/** Dates in Chicago, relative to today: every time reported for them lies in the past. */
const TODAY = wall(Date.now(), CHICAGO).slice(0, 10);
/** The driven route's service date. */
const P = addDays(TODAY, -3);
/** The near-midnight routes' date (and the day before). */
const M = addDays(TODAY, -10);
/** The date of the routes that fill several files. */
const S = addDays(TODAY, -20);
/** A date without routes in any DC. */
const EMPTY = addDays(TODAY, -60);

// ---------------------------------------------------------------------------------------------------
// Names that CSV has to quote, and the DESIGN §6 column lists
// ---------------------------------------------------------------------------------------------------

const CHI_NAME = 'Chicago "Loop", Zoë';
const TYO_NAME = '東京 DC, "Shibuya"';
const ROUTE_NAME = 'Route "Nord", Zoë';
const DRIVER_NAME = 'Zoë "Q", Ltd.';
const CUSTOMER_A = 'Zoë "Q", Ltd.\nNorth';

// ---------------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------------

const on = (latitude: number) => ({ latitude, longitude: -87.65 });
const WAREHOUSE = { id: 'wh-calc', name: 'Dock, "A"', address: '1 Dock St', location: on(41.8) };
const calcAt = (time: string) => zoned(P, time, CHICAGO);

const item = (id: string, cents: number) => ({
  id,
  sku: `SKU-${id}`,
  name: `Item ${id}`,
  quantity: 1,
  display_unit_of_measure: 'EA',
  total_price_cents: cents,
  currency: 'USD',
});
const invoice = (id: string, paymentMethod: string | undefined, items: [string, number][]) => ({
  id,
  ...(paymentMethod ? { payment_method: paymentMethod } : {}),
  invoice_name_attributes: [{ key: 'invoice_number', value: id }],
  items: items.map(([itemId, cents]) => item(itemId, cents)),
});

/**
 * Five customers 0.01° apart going north from the warehouse:
 * A window 10:00-11:00; B windows 14:00-15:00 and 12:00-13:00 (unsorted); C one window that opened the
 * day before and closed at 09:30; D and E none. Cash invoices: A1 (1,250), B1 (1,000), C1 (400).
 */
const calc = {
  id: 'calc-1',
  name: ROUTE_NAME,
  driver_id: 'drv-z',
  start_time: calcAt('09:00'),
  activate_after_successful_import: true,
  start_warehouse: WAREHOUSE,
  end_warehouse: WAREHOUSE,
  vehicle: { id: 'truck-calc' },
  waypoints: [
    {
      id: 'calc-wp-a',
      customer_id: 'cust-a',
      name: CUSTOMER_A,
      address: '1 North St',
      location: on(41.81),
      service_time_minutes: 10,
      time_windows: [{ start: calcAt('10:00'), end: calcAt('11:00') }],
      invoices: [
        invoice('calc-inv-a1', 'CASH', [
          ['calc-a1', 1000],
          ['calc-a2', 250],
        ]),
        invoice('calc-inv-a2', 'CREDIT', [['calc-a3', 5000]]),
      ],
    },
    {
      id: 'calc-wp-b',
      customer_id: 'cust-b',
      name: 'Bäckerei “B”',
      address: '2 North St',
      location: on(41.82),
      service_time_minutes: 5,
      time_windows: [
        { start: calcAt('14:00'), end: calcAt('15:00') },
        { start: calcAt('12:00'), end: calcAt('13:00') },
      ],
      invoices: [
        invoice('calc-inv-b1', 'CASH', [
          ['calc-b1', 700],
          ['calc-b2', 300],
        ]),
      ],
    },
    {
      id: 'calc-wp-c',
      customer_id: 'cust-c',
      name: 'Café, "C"',
      address: '3 North St',
      location: on(41.83),
      service_time_minutes: 0,
      time_windows: [{ start: zoned(addDays(P, -1), '23:00', CHICAGO), end: calcAt('09:30') }],
      invoices: [invoice('calc-inv-c1', 'CASH', [['calc-c1', 400]])],
    },
    {
      id: 'calc-wp-d',
      customer_id: 'cust-d',
      name: 'Dee',
      address: '4 North St',
      location: on(41.84),
      service_time_minutes: 3,
      time_windows: [],
      invoices: [invoice('calc-inv-d1', 'CREDIT', [['calc-d1', 100]])],
    },
    {
      id: 'calc-wp-e',
      customer_id: 'cust-e',
      name: 'Eve',
      address: '5 North St',
      location: on(41.85),
      service_time_minutes: 0,
      time_windows: [],
      invoices: [invoice('calc-inv-e1', undefined, [['calc-e1', 60]])],
    },
  ],
};

/** The smallest route the finish by API key accepts: active, one customer, no driver. */
const minimalRoute = (id: string, startTime: number) => ({
  id,
  name: id,
  start_time: startTime,
  activate_after_successful_import: true,
  waypoints: [{ id: `${id}-wp`, customer_id: `${id}-customer`, location: on(41.9) }],
});

/** Near midnight: 23:50 the day before M and 00:10 on M, local to each DC. */
const MIDNIGHT = {
  'mid-chi-late': { dc: 'chi', start: zoned(addDays(M, -1), '23:50', CHICAGO), date: addDays(M, -1) },
  'mid-chi-early': { dc: 'chi', start: zoned(M, '00:10', CHICAGO), date: M },
  'mid-tyo-late': { dc: 'tyo', start: zoned(addDays(M, -1), '23:50', TOKYO), date: addDays(M, -1) },
  'mid-tyo-early': { dc: 'tyo', start: zoned(M, '00:10', TOKYO), date: M },
} as const;

const SPLIT_IDS = Array.from({ length: 7 }, (_, index) => `split-${index + 1}`);

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

async function createAccount(name: string, dcs: { dcId: string; timeZone: string; name?: string }[]) {
  const created = await createAccountWithUsageKey({ name, dcs });
  return { accountId: created.accountId, key: created.apiKey };
}

async function routeAnalytics(dcId: string, routeId: string): Promise<Row> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/analytics/route`);
  return (expectSuccess(response, analytics.getRouteAnalytics) as { route_analytics: Row }).route_analytics;
}

async function attemptAnalytics(dcId: string, routeId: string): Promise<Row[]> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/analytics/attempts`);
  return (expectSuccess(response, analytics.getAttemptAnalytics) as { attempt_analytics: Row[] })
    .attempt_analytics;
}

async function finishByKey(dcId: string, routeId: string) {
  const response = await asAcme('PATCH', `/dcs/${dcId}/routes/${routeId}/finish`);
  expectSuccess(response, routes.finishRoute);
}

interface DownloadBody {
  dc_ids: string[];
  from_date: string;
  to_date: string;
  analytics_types: string[];
}

const downloadBody = (overrides: Partial<DownloadBody> = {}): DownloadBody => ({
  dc_ids: ['chi'],
  from_date: '2026-01-01',
  to_date: '2026-01-31',
  analytics_types: ['ROUTE_ANALYTICS'],
  ...overrides,
});

async function requestDownload(body: DownloadBody, key = acme.key): Promise<string> {
  const response = await request('POST', '/analytics/download-requests', { key, body });
  const { download_request_txid } = expectSuccess(response, analytics.requestAnalyticsDownload) as {
    download_request_txid: string;
  };
  expect(download_request_txid).toMatch(/\S/);
  return download_request_txid;
}

const filesPath = (txid: string) => `/analytics/download-requests/${encodeURIComponent(txid)}/files`;

/** Polls the files until they are ready (202 meanwhile, with the txid); fails after 60 s. */
async function waitForFiles(txid: string): Promise<DownloadFile[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await asAcme('GET', filesPath(txid));
    if (response.status !== 202) {
      const before = Date.now();
      const { download_request_files } = expectSuccess(response, analytics.getAnalyticsDownloadFiles) as {
        download_request_files: DownloadFile[];
      };
      for (const file of download_request_files) {
        expect(file.file_type).toBe('CSV');
        expect(typeof file.expiration_timestamp).toBe('number');
        // Presigned for an hour at this read.
        expect(file.expiration_timestamp).toBeGreaterThan(before + 3_600_000 - 60_000);
        expect(file.expiration_timestamp).toBeLessThan(before + 3_600_000 + 60_000);
      }
      return download_request_files;
    }
    expect(expectSuccess(response, analytics.getAnalyticsDownloadFiles, 202)).toEqual({
      download_request_txid: txid,
    });
    expect(Date.now(), `download request ${txid} still pending`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

interface CsvFile {
  text: string;
  header: string[];
  rows: Record<string, string>[];
}

/** GETs a download link with a plain fetch (no Authorization header) and parses it with csv-parse. */
async function downloadCsv(link: string): Promise<CsvFile> {
  const response = await fetch(link);
  const text = await response.text();
  expect(response.status, text.slice(0, 500)).toBe(200);
  const records = parse(text) as string[][];
  const [header, ...rest] = records;
  expect(header, `no header line in ${JSON.stringify(text.slice(0, 200))}`).toBeDefined();
  const columns = header as string[];
  const rows = rest.map((record) => {
    expect(record).toHaveLength(columns.length);
    return Object.fromEntries(columns.map((column, index) => [column, record[index] as string]));
  });
  return { text, header: columns, rows };
}

interface Export {
  files: DownloadFile[];
  /** Per type: every file, in the order listed. */
  csv: Record<AnalyticsType, CsvFile[]>;
}

/** Requests a download, waits for its files and downloads them all. */
async function runExport(body: DownloadBody): Promise<Export> {
  const files = await waitForFiles(await requestDownload(body));
  const csv: Record<AnalyticsType, CsvFile[]> = { ROUTE_ANALYTICS: [], ATTEMPT_ANALYTICS: [] };
  for (const file of files) csv[file.download_type].push(await downloadCsv(file.download_link));
  const columns = { ROUTE_ANALYTICS: routeColumns, ATTEMPT_ANALYTICS: attemptColumns };
  for (const type of ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS'] as const) {
    // One or more files of each type asked for, none of the others; each starts with the column ids.
    if (body.analytics_types.includes(type)) expect(csv[type].length, type).toBeGreaterThan(0);
    else expect(csv[type], type).toEqual([]);
    for (const file of csv[type]) expect(file.header).toEqual(columns[type]);
  }
  return { files, csv };
}

const rowsOf = (files: CsvFile[]) => files.flatMap((file) => file.rows);

/** A record as a CSV row: every value a string, null empty. */
const asCsv = (row: Row) =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? '' : String(value)]));

const byRouteId = (a: Record<string, Value>, b: Record<string, Value>) =>
  String(a.route_id).localeCompare(String(b.route_id));

// ---------------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------------

beforeAll(async () => {
  api = await startTestApi('analytics', {
    customize: (routes) =>
      functionOf(routes, 'workers/export-analytics').addEnvironment(
        'ANALYTICS_ROWS_PER_FILE',
        String(ROWS_PER_FILE),
      ),
  });
  acme = await createAccount('Acme', [
    { dcId: 'chi', timeZone: CHICAGO, name: CHI_NAME },
    { dcId: 'tyo', timeZone: TOKYO, name: TYO_NAME },
  ]);
  // Globex has a DC with one of Acme's ids ('chi') and one of its own; not 'tyo'.
  globex = await createAccount('Globex', [
    { dcId: 'chi', timeZone: CHICAGO },
    { dcId: 'gx', timeZone: 'Europe/Berlin' },
  ]);

  const definitions = await asAcme('GET', '/analytics/column-definitions');
  const data = expectSuccess(definitions, analytics.getColumnDefinitions) as {
    route_analysis_column_definitions: ColumnDefinitions;
    attempt_analysis_column_definitions: ColumnDefinitions;
  };
  routeColumns = Object.keys(data.route_analysis_column_definitions);
  attemptColumns = Object.keys(data.attempt_analysis_column_definitions);

  const driver = await asAcme('POST', '/dcs/chi/drivers', {
    driver_id: 'drv-z',
    driver_name: DRIVER_NAME,
    login_token: 'calc-driver-token-01',
  });
  expectSuccess(driver, drivers.createDriver);

  const simple = [
    ...Object.entries(MIDNIGHT).map(([id, { dc, start }]) => ({ dc, route: minimalRoute(id, start) })),
    ...SPLIT_IDS.map((id, index) => ({
      dc: 'chi',
      route: minimalRoute(id, zoned(S, `08:0${index}`, CHICAGO)),
    })),
  ];
  await Promise.all([
    importRoute(api.url, acme.key, 'chi', calc),
    ...simple.map(({ dc, route }) => importRoute(api.url, acme.key, dc, route)),
  ]);
  await Promise.all(simple.map(({ dc, route }) => finishByKey(dc, route.id)));
}, 90_000);

afterAll(async () => {
  await api?.close();
});

// ---------------------------------------------------------------------------------------------------
// Column definitions
// ---------------------------------------------------------------------------------------------------

describe('GET /analytics/column-definitions', () => {
  it('defines every DESIGN §6 column of both types, each with a name and a description', async () => {
    const response = await asAcme('GET', '/analytics/column-definitions');
    const data = expectSuccess(response, analytics.getColumnDefinitions) as {
      route_analysis_column_definitions: ColumnDefinitions;
      attempt_analysis_column_definitions: ColumnDefinitions;
    };
    expect(routeColumns).toEqual(expect.arrayContaining(DESIGN_ROUTE_COLUMNS));
    expect(attemptColumns).toEqual(expect.arrayContaining(DESIGN_ATTEMPT_COLUMNS));
    // The spec names these column ids.
    expect(attemptColumns).toEqual(expect.arrayContaining(['dc_id', 'dc_time_zone', 'waypoint_id']));
    for (const definitions of [
      data.route_analysis_column_definitions,
      data.attempt_analysis_column_definitions,
    ]) {
      for (const [id, definition] of Object.entries(definitions)) {
        expect(Object.keys(definition).sort(), id).toEqual(['column_description', 'column_name']);
        expect(definition.column_name.trim(), id).not.toBe('');
        expect(definition.column_description.trim(), id).not.toBe('');
      }
    }
  });

  it('answers 401 without an API key', async () => {
    expectError(await request('GET', '/analytics/column-definitions'), 401, 1001);
  });
});

// ---------------------------------------------------------------------------------------------------
// A driven route, computed at its finish
// ---------------------------------------------------------------------------------------------------

describe('analytics of a route driven through the driver app', () => {
  const token = 'calc-driver-token-01';
  const asDriver = (method: string, path: string, body?: unknown) =>
    request(method, path, { key: token, body });
  const reason = { code: 'CLOSED', message: 'Customer closed' };

  async function attempt(waypoint: string, body: Record<string, unknown>) {
    const response = await asDriver('POST', `/driver/routes/calc-1/waypoints/${waypoint}/attempts`, body);
    expectSuccess(response, driverApp.recordDriverAttempt);
  }

  const identity = {
    dc_id: 'chi',
    dc_name: CHI_NAME,
    dc_time_zone: CHICAGO,
    route_id: 'calc-1',
    route_name: ROUTE_NAME,
    planned_route_start_date: P,
    driver_id: 'drv-z',
    driver_name: DRIVER_NAME,
  };

  /** Worked out by hand from the route, the visits below and the trace. */
  const expectedRoute: Row = {
    ...identity,
    planned_route_start_timestamp: `${P} 09:00:00`,
    imported_customers_count: 5,
    successful_customers_count: 1, // B (its last visit delivered both items)
    failed_customers_count: 1, // C
    try_again_later_customers_count: 1, // D
    mixed_status_customers_count: 1, // A (two items delivered, one failed)
    total_visited_customers_count: 4,
    total_unvisited_customers_count: 1, // E
    actual_route_departure_time: `${P} 09:05:00`,
    actual_route_arrival_time: `${P} 15:00:00`,
    // W -> A -> B -> C -> D -> E: five legs of 0.01°, then E -> W 0.05°: 0.10° = 11,119.508 m x 1.3.
    planned_driving_meters: 14455,
    // Pings 41.80 -> 41.85 -> 41.82 -> 41.80 between the start and the finish: 0.10° (the pings
    // at 08:00 and 15:30 at 45° N lie outside and add nothing).
    total_driven_meters: 11120,
    // Five legs of 173.464 s and one of 867.322 s: 1,734.642 s.
    planned_driving_seconds: 1735,
    // 09:00 +173.464 s at A, waits for 10:00, 10 min; B waits for 12:00, 5 min: 12:05:00; C (window
    // closed: no wait, 0 min) +173.464 s; D +173.464 s, 3 min; E +173.464 s, 0 min; W +867.322 s:
    // 3 h 5 min + 4 x 173.464 s + 180 s + 867.322 s = 12,667.714 s.
    planned_journey_seconds: 12668,
    total_journey_seconds: 21300, // 09:05 -> 15:00
    customers_with_additional_visits: 1, // B, three visits
    total_additional_visits: 2,
    planned_items_count: 8,
    delivered_items_count: 5, // a1, a3, b1, b2, d1
    failed_items_count: 2, // a2, c1 (e1 never decided)
    planned_cash_cents: 2650, // 1000 + 250 + 700 + 300 + 400
    cash_received_cents: 1734, // 1500 + 234
  };

  const windowsB = '12:00-13:00; 14:00-15:00';
  const expectedAttempts: Row[] = [
    {
      ...identity,
      waypoint_id: 'calc-wp-a',
      customer_id: 'cust-a',
      customer_name: CUSTOMER_A,
      attempt_id: 'att-a1',
      attempt_number: 1,
      visit_start_timestamp: `${P} 10:00:00`,
      visit_meters_from_customer: 111, // 0.001° north of A
      aggregate_visit_status: 'MIXED',
      waypoint_time_windows: '10:00-11:00',
      visit_timeliness: 'ON_TIME', // at the window's start (inclusive)
      items_successful: 2,
      items_failed: 1,
    },
    {
      ...identity,
      waypoint_id: 'calc-wp-b',
      customer_id: 'cust-b',
      customer_name: 'Bäckerei “B”',
      attempt_id: 'att-b1',
      attempt_number: 1,
      visit_start_timestamp: `${P} 10:30:00`,
      visit_meters_from_customer: null, // no location reported
      aggregate_visit_status: 'VISIT_LATER',
      waypoint_time_windows: windowsB,
      visit_timeliness: 'EARLY',
      items_successful: 0,
      items_failed: 0,
    },
    {
      ...identity,
      waypoint_id: 'calc-wp-c',
      customer_id: 'cust-c',
      customer_name: 'Café, "C"',
      attempt_id: 'att-c1',
      attempt_number: 1,
      visit_start_timestamp: `${P} 11:30:00`,
      visit_meters_from_customer: 0,
      aggregate_visit_status: 'FAILED',
      // Starts the day before the route's date: full local date-times.
      waypoint_time_windows: `${addDays(P, -1)} 23:00:00 - ${P} 09:30:00`,
      visit_timeliness: 'LATE',
      items_successful: 0,
      items_failed: 1,
    },
    {
      ...identity,
      waypoint_id: 'calc-wp-d',
      customer_id: 'cust-d',
      customer_name: 'Dee',
      attempt_id: 'att-d1',
      attempt_number: 1,
      visit_start_timestamp: `${P} 11:45:00`,
      visit_meters_from_customer: 1112, // 0.01° north of D
      aggregate_visit_status: 'VISIT_LATER',
      waypoint_time_windows: expect.toBeOneOf(['', null]),
      visit_timeliness: 'NO_WINDOW',
      items_successful: 1,
      items_failed: 0,
    },
    {
      ...identity,
      waypoint_id: 'calc-wp-b',
      customer_id: 'cust-b',
      customer_name: 'Bäckerei “B”',
      attempt_id: 'att-b2',
      attempt_number: 2,
      visit_start_timestamp: `${P} 13:00:00`,
      visit_meters_from_customer: null,
      aggregate_visit_status: 'FAILED',
      waypoint_time_windows: windowsB,
      visit_timeliness: 'LATE', // at the first window's end (exclusive), before the second opens
      items_successful: 0,
      items_failed: 2,
    },
    {
      ...identity,
      waypoint_id: 'calc-wp-b',
      customer_id: 'cust-b',
      customer_name: 'Bäckerei “B”',
      attempt_id: 'att-b3',
      attempt_number: 3,
      visit_start_timestamp: `${P} 14:30:00`,
      visit_meters_from_customer: 222, // 0.002° north of B
      aggregate_visit_status: 'SUCCESSFUL',
      waypoint_time_windows: windowsB,
      visit_timeliness: 'ON_TIME',
      items_successful: 2,
      items_failed: 0,
    },
  ];

  let finishedRoute: Row;
  let finishedAttempts: Row[];

  it('answers 404 while the route is imported, and while it is started', async () => {
    expectError(await asAcme('GET', '/dcs/chi/routes/calc-1/analytics/route'), 404, 1003);
    expectError(await asAcme('GET', '/dcs/chi/routes/calc-1/analytics/attempts'), 404, 1003);
    const started = await asDriver('POST', '/driver/routes/calc-1/start', { timestamp: calcAt('09:05') });
    expectSuccess(started, driverApp.startDriverRoute);
    expectError(await asAcme('GET', '/dcs/chi/routes/calc-1/analytics/route'), 404, 1003);
    expectError(await asAcme('GET', '/dcs/chi/routes/calc-1/analytics/attempts'), 404, 1003);
  });

  it('computes every column at the finish, as worked out by hand', async () => {
    const pings: [string, number][] = [
      ['08:00', 45],
      ['09:06', 41.8],
      ['09:30', 41.81],
      ['10:20', 41.82],
      ['11:20', 41.83],
      ['11:40', 41.84],
      ['12:00', 41.85],
      ['14:00', 41.82],
      ['14:59', 41.8],
      ['15:30', 45],
    ];
    for (const [time, latitude] of pings) {
      const response = await asDriver('POST', '/driver/location', {
        timestamp: calcAt(time),
        location: on(latitude),
      });
      expectSuccess(response, driverApp.reportDriverLocation);
    }
    await attempt('calc-wp-a', {
      id: 'att-a1',
      timestamp: calcAt('10:00'),
      status: 'SUCCESSFUL',
      location: on(41.811),
      items: [
        { id: 'calc-a1', status: 'SUCCESSFUL' },
        { id: 'calc-a2', status: 'FAILED', reason: { code: 'DAMAGED', message: 'Crushed box' } },
      ],
    });
    await attempt('calc-wp-b', { id: 'att-b1', timestamp: calcAt('10:30'), status: 'VISIT_LATER' });
    await attempt('calc-wp-c', {
      id: 'att-c1',
      timestamp: calcAt('11:30'),
      status: 'FAILED',
      reason,
      location: on(41.83),
    });
    await attempt('calc-wp-d', {
      id: 'att-d1',
      timestamp: calcAt('11:45'),
      status: 'VISIT_LATER',
      location: on(41.85),
      items: [{ id: 'calc-d1', status: 'SUCCESSFUL' }],
    });
    await attempt('calc-wp-b', { id: 'att-b2', timestamp: calcAt('13:00'), status: 'FAILED', reason });
    await attempt('calc-wp-b', {
      id: 'att-b3',
      timestamp: calcAt('14:30'),
      status: 'SUCCESSFUL',
      location: on(41.822),
    });
    for (const [id, cents] of [
      ['cash-calc-1', 1500],
      ['cash-calc-2', 234],
    ] as const) {
      const response = await asDriver('POST', '/driver/routes/calc-1/accounting', {
        id,
        cash_received_cents: cents,
        cash_container_id: 'box-1',
      });
      expectSuccess(response, driverApp.addDriverAccountingRecord);
    }
    const finished = await asDriver('POST', '/driver/routes/calc-1/finish', { timestamp: calcAt('15:00') });
    expectSuccess(finished, driverApp.finishDriverRoute);

    // Renamed right after the finish: the analytics keep the name they were computed with.
    const renamed = await asAcme('PATCH', '/dcs/chi/drivers/drv-z', { driver_name: 'Renamed Driver' });
    expect(renamed.status, renamed.text).toBe(200);

    finishedRoute = await routeAnalytics('chi', 'calc-1');
    expect(Object.keys(finishedRoute).sort()).toEqual([...routeColumns].sort());
    expect(finishedRoute).toMatchObject(expectedRoute);
  });

  it('lists one record per attempt, in the order they happened', async () => {
    finishedAttempts = await attemptAnalytics('chi', 'calc-1');
    for (const row of finishedAttempts) expect(Object.keys(row).sort()).toEqual([...attemptColumns].sort());
    expect(finishedAttempts).toMatchObject(expectedAttempts);
  });

  it('answers the same records on every read, and a second finish changes nothing', async () => {
    expect(finishedRoute, 'the route record was not read').toBeDefined();
    const again = await asAcme('PATCH', '/dcs/chi/routes/calc-1/finish');
    expectError(again, 400, 3012);
    expect(await routeAnalytics('chi', 'calc-1')).toEqual(finishedRoute);
    expect(await attemptAnalytics('chi', 'calc-1')).toEqual(finishedAttempts);
  });

  it('pages the attempt records: every one once, in order, at any page size', async () => {
    expect(finishedAttempts.length, 'the attempt records were not read').toBeGreaterThan(1);
    const path = '/dcs/chi/routes/calc-1/analytics/attempts';
    for (const limit of [1, 2]) {
      const pages = await readAllPages(
        (pathAndQuery) => asAcme('GET', pathAndQuery),
        path,
        analytics.getAttemptAnalytics,
        { limit: String(limit) },
      );
      for (const page of pages) expect((page.attempt_analytics as Row[]).length).toBeLessThanOrEqual(limit);
      expect(pages.flatMap((page) => page.attempt_analytics as Row[])).toEqual(finishedAttempts);
    }
    for (const limit of ['0', String(analytics.ATTEMPT_ANALYTICS_PAGE.maxLimit + 1)]) {
      expect(expectError(await asAcme('GET', `${path}?limit=${limit}`), 400, 1006)).toContain('query.limit');
    }
    const forged = Buffer.from(JSON.stringify({ pk: 'ANALYTICS#x', sk: 'ATTEMPT#calc-1#000001' }));
    const response = await asAcme('GET', `${path}?next_token=${forged.toString('base64url')}`);
    expect(expectError(response, 400, 1006)).toContain('query.next_token');
  });

  it('exports the same rows as CSV, names with commas, quotes, line breaks and non-ASCII intact', async () => {
    expect(finishedAttempts, 'the attempt records were not read').toBeDefined();
    const exported = await runExport({
      dc_ids: ['chi'],
      from_date: P,
      to_date: P,
      analytics_types: ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS'],
    });
    expect(rowsOf(exported.csv.ROUTE_ANALYTICS)).toEqual([asCsv(finishedRoute)]);
    // Six attempts, three rows a file: exactly two files, neither empty.
    expect(exported.csv.ATTEMPT_ANALYTICS.map((file) => file.rows.length)).toEqual([3, 3]);
    expect(rowsOf(exported.csv.ATTEMPT_ANALYTICS)).toEqual(finishedAttempts.map(asCsv));
    // RFC 4180 quoting of the raw bytes: quotes doubled, the line break inside the quoted field.
    const attemptText = exported.csv.ATTEMPT_ANALYTICS.map((file) => file.text).join('');
    expect(attemptText).toContain('"Zoë ""Q"", Ltd.\nNorth"');
    expect(exported.csv.ROUTE_ANALYTICS.map((file) => file.text).join('')).toContain(
      '"Chicago ""Loop"", Zoë"',
    );
  });

  it('exports a DC listed twice once', async () => {
    expect(finishedRoute, 'the route record was not read').toBeDefined();
    const exported = await runExport({
      dc_ids: ['chi', 'chi'],
      from_date: P,
      to_date: P,
      analytics_types: ['ROUTE_ANALYTICS'],
    });
    expect(rowsOf(exported.csv.ROUTE_ANALYTICS)).toEqual([asCsv(finishedRoute)]);
  });

  it('presigns a link that still works on a second files read', async () => {
    const txid = await requestDownload({
      dc_ids: ['chi'],
      from_date: P,
      to_date: P,
      analytics_types: ['ROUTE_ANALYTICS'],
    });
    await waitForFiles(txid);
    const [file] = await waitForFiles(txid);
    expect(file?.download_type).toBe('ROUTE_ANALYTICS');
    const csv = await downloadCsv((file as DownloadFile).download_link);
    expect(csv.rows).toEqual([asCsv(finishedRoute)]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Single-route read errors
// ---------------------------------------------------------------------------------------------------

describe('GET /dcs/{dc_id}/routes/{route_id}/analytics/route|attempts errors', () => {
  const kinds = ['route', 'attempts'] as const;

  it('answers 404 for a route that does not exist, or is another DC’s', async () => {
    for (const kind of kinds) {
      expectError(await asAcme('GET', `/dcs/chi/routes/no-such-route/analytics/${kind}`), 404, 3003);
      // mid-tyo-early is a finished route of Acme's DC tyo, not of chi.
      expectError(await asAcme('GET', `/dcs/chi/routes/mid-tyo-early/analytics/${kind}`), 404, 3003);
    }
  });

  it('answers 403 (1002) for a DC outside the key’s account', async () => {
    for (const kind of kinds) {
      const response = await request('GET', `/dcs/tyo/routes/mid-tyo-early/analytics/${kind}`, {
        key: globex.key,
      });
      expectError(response, 403, 1002);
      expectError(await asAcme('GET', `/dcs/gx/routes/mid-tyo-early/analytics/${kind}`), 403, 1002);
    }
  });

  it('answers 404 to another account’s key on a DC id both accounts have', async () => {
    for (const kind of kinds) {
      const response = await request('GET', `/dcs/chi/routes/mid-chi-early/analytics/${kind}`, {
        key: globex.key,
      });
      expectError(response, 404, 3003);
    }
  });

  it('answers 401 without an API key, and with an unknown one', async () => {
    for (const kind of kinds) {
      expectError(await request('GET', `/dcs/chi/routes/mid-chi-early/analytics/${kind}`), 401, 1001);
      const unknown = await request('GET', `/dcs/chi/routes/mid-chi-early/analytics/${kind}`, {
        key: 'not-a-key',
      });
      expectError(unknown, 401, 1001);
    }
  });

  it('reads a finished route without attempts: an empty attempt list', async () => {
    expect(await attemptAnalytics('chi', 'mid-chi-early')).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Download requests
// ---------------------------------------------------------------------------------------------------

describe('POST /analytics/download-requests validation', () => {
  const post = (body: unknown, key = acme.key) =>
    request('POST', '/analytics/download-requests', { key, body });

  it('answers 6005 for empty dc_ids', async () => {
    expectError(await post(downloadBody({ dc_ids: [] })), 400, 6005);
  });

  it('answers 6001 for dates that are not YYYY-MM-DD calendar dates', async () => {
    for (const bad of ['2026-02-30', '2026-13-01', '26-1-1', '2026-1-01', '2025-02-29']) {
      expectError(await post(downloadBody({ from_date: bad })), 400, 6001);
      expectError(await post(downloadBody({ from_date: '2020-01-01', to_date: bad })), 400, 6001);
    }
  });

  it('answers 6002 when from_date is after to_date', async () => {
    expectError(await post(downloadBody({ from_date: '2026-03-02', to_date: '2026-03-01' })), 400, 6002);
  });

  it('answers 6003 for more than 92 days, counting both ends; 92 days pass', async () => {
    // Jan 31 + Feb 28 + Mar 31 = 90 days, April 1 and 2 make 92.
    expectError(await post(downloadBody({ from_date: '2026-01-01', to_date: '2026-04-03' })), 400, 6003);
    await requestDownload(downloadBody({ from_date: '2026-01-01', to_date: '2026-04-02' }));
    // 2020 is a leap year: Feb has 29 days.
    expectError(await post(downloadBody({ from_date: '2020-01-01', to_date: '2020-04-02' })), 400, 6003);
    await requestDownload(downloadBody({ from_date: '2020-01-01', to_date: '2020-04-01' }));
  });

  it('answers 6004 for unknown or empty analytics_types', async () => {
    for (const types of [[], ['FOO'], ['ROUTE_ANALYTICS', 'FOO'], ['route_analytics']]) {
      expectError(await post(downloadBody({ analytics_types: types })), 400, 6004);
    }
  });

  it('answers 6004 for an unknown type next to both known ones', async () => {
    const types = ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS', 'FOO'];
    expectError(await post(downloadBody({ analytics_types: types })), 400, 6004);
  });

  it('answers 403 (1002) for a DC outside the key’s account', async () => {
    expectError(await post(downloadBody({ dc_ids: ['chi', 'gx'] })), 403, 1002);
    expectError(await post(downloadBody({ dc_ids: ['tyo'] }), globex.key), 403, 1002);
  });

  it('answers 401 without an API key', async () => {
    expectError(await request('POST', '/analytics/download-requests', { body: downloadBody() }), 401, 1001);
  });
});

describe('GET /analytics/download-requests/{txid}/files', () => {
  it('answers 202 with the txid while the files are pending', async () => {
    // A request stored as pending and never queued stays pending.
    const txid = 'dl_seeded_pending';
    await putPendingDownload({
      accountId: acme.accountId,
      txid,
      dcIds: ['chi'],
      fromDate: P,
      toDate: P,
      analyticsTypes: ['ROUTE_ANALYTICS'],
      status: 'PENDING',
      files: [],
      createdAt: Date.now(),
    });
    const response = await asAcme('GET', filesPath(txid));
    expect(expectSuccess(response, analytics.getAnalyticsDownloadFiles, 202)).toEqual({
      download_request_txid: txid,
    });
    expectError(await request('GET', filesPath(txid), { key: globex.key }), 400, 6000);
  });

  it('answers 400 (6000) for an unknown txid and for another account’s txid', async () => {
    expectError(await asAcme('GET', filesPath('dl_no_such_request')), 400, 6000);
    expectError(await asAcme('GET', filesPath('dl_✓')), 400, 6000);
    const txid = await requestDownload(downloadBody({ from_date: EMPTY, to_date: EMPTY }));
    await waitForFiles(txid);
    expectError(await request('GET', filesPath(txid), { key: globex.key }), 400, 6000);
  });

  it('answers 400 (6000) for a txid no request could have (too long, or with a space)', async () => {
    expectError(await asAcme('GET', filesPath('x'.repeat(129))), 400, 6000);
    expectError(await asAcme('GET', filesPath('dl no such request')), 400, 6000);
  });

  it('answers 401 without an API key', async () => {
    expectError(await request('GET', filesPath('dl_no_such_request')), 401, 1001);
  });

  it('gives header-only files for a range without routes', async () => {
    const exported = await runExport({
      dc_ids: ['chi', 'tyo'],
      from_date: EMPTY,
      to_date: EMPTY,
      analytics_types: ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS'],
    });
    expect(exported.csv.ROUTE_ANALYTICS).toHaveLength(1);
    expect(exported.csv.ATTEMPT_ANALYTICS).toHaveLength(1);
    for (const file of [...exported.csv.ROUTE_ANALYTICS, ...exported.csv.ATTEMPT_ANALYTICS]) {
      expect(file.rows).toEqual([]);
      expect(file.text.split(/\r?\n/).filter((line) => line !== '')).toEqual([file.header.join(',')]);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// DC-local dates
// ---------------------------------------------------------------------------------------------------

describe('DC-local service dates near midnight (Chicago and Tokyo)', () => {
  it('is a test that a UTC date would fail', () => {
    // 23:50 in Chicago is already the next day in UTC; 00:10 in Tokyo is still the day before.
    expect(utcDate(MIDNIGHT['mid-chi-late'].start)).toBe(M);
    expect(utcDate(MIDNIGHT['mid-tyo-early'].start)).toBe(addDays(M, -1));
  });

  it('dates each route by its DC’s clock in the single-route read', async () => {
    for (const [routeId, { dc, date, start }] of Object.entries(MIDNIGHT)) {
      const record = await routeAnalytics(dc, routeId);
      expect(record).toMatchObject({
        dc_id: dc,
        dc_name: dc === 'chi' ? CHI_NAME : TYO_NAME,
        dc_time_zone: dc === 'chi' ? CHICAGO : TOKYO,
        route_id: routeId,
        planned_route_start_date: date,
        planned_route_start_timestamp: wall(start, dc === 'chi' ? CHICAGO : TOKYO),
        driver_id: null,
        driver_name: null,
        actual_route_departure_time: null,
        total_journey_seconds: null,
      });
    }
  });

  it('exports for one local date exactly the routes that started on it in their DC', async () => {
    for (const date of [M, addDays(M, -1)]) {
      const exported = await runExport({
        dc_ids: ['chi', 'tyo'],
        from_date: date,
        to_date: date,
        analytics_types: ['ROUTE_ANALYTICS'],
      });
      const rows = rowsOf(exported.csv.ROUTE_ANALYTICS);
      const expected = Object.entries(MIDNIGHT).filter(([, route]) => route.date === date);
      expect(rows.map((row) => row.route_id).sort(), date).toEqual(expected.map(([id]) => id).sort());
      for (const [routeId, { dc }] of expected) {
        const row = rows.find((candidate) => candidate.route_id === routeId);
        expect(row).toEqual(asCsv(await routeAnalytics(dc, routeId)));
      }
    }
  });

  it('exports nothing of a DC that was not asked for', async () => {
    const exported = await runExport({
      dc_ids: ['tyo'],
      from_date: addDays(M, -1),
      to_date: M,
      analytics_types: ['ROUTE_ANALYTICS'],
    });
    const ids = rowsOf(exported.csv.ROUTE_ANALYTICS).map((row) => row.route_id);
    expect(ids.sort()).toEqual(['mid-tyo-early', 'mid-tyo-late']);
  });
});

// ---------------------------------------------------------------------------------------------------
// Splitting, missing analytics, deletion
// ---------------------------------------------------------------------------------------------------

describe('an export bigger than one file', () => {
  let reads: Row[];

  it('computes analytics a finished route is missing, on the read and on the export', async () => {
    // Storage detail (DESIGN §6: stored at the finish, computed on demand when missing).
    const place = (routeId: string) => ({ accountId: acme.accountId, dcId: 'chi', localDate: S, routeId });
    const stored = await listRouteAnalytics(place('split-1'), 'ROUTE_ANALYTICS');
    expect(stored).toHaveLength(1);
    await deleteRouteAnalytics(place('split-1'));
    await deleteRouteAnalytics(place('split-2'));
    expect(await listRouteAnalytics(place('split-1'), 'ROUTE_ANALYTICS')).toEqual([]);
    expect(await routeAnalytics('chi', 'split-1')).toEqual(stored[0]);
    // split-2 stays missing until the export below.
    expect(await listRouteAnalytics(place('split-2'), 'ROUTE_ANALYTICS')).toEqual([]);
  });

  it('splits seven routes into files of at most three rows that together hold every route', async () => {
    const exported = await runExport({
      dc_ids: ['chi'],
      from_date: S,
      to_date: S,
      analytics_types: ['ROUTE_ANALYTICS'],
    });
    const counts = exported.csv.ROUTE_ANALYTICS.map((file) => file.rows.length);
    expect([...counts].sort()).toEqual([1, 3, 3]);
    reads = await Promise.all(SPLIT_IDS.map((id) => routeAnalytics('chi', id)));
    const rows = rowsOf(exported.csv.ROUTE_ANALYTICS).sort(byRouteId);
    expect(rows).toEqual(reads.map(asCsv).sort(byRouteId));
  });

  it('leaves a deleted finished route out of later exports', async () => {
    expect(reads, 'the routes were not read').toBeDefined();
    const deleted = await asAcme('DELETE', '/dcs/chi/routes/split-7');
    expect(deleted.status, deleted.text).toBe(200);
    expectError(await asAcme('GET', '/dcs/chi/routes/split-7/analytics/route'), 404, 3003);
    const exported = await runExport({
      dc_ids: ['chi'],
      from_date: S,
      to_date: S,
      analytics_types: ['ROUTE_ANALYTICS'],
    });
    expect(exported.csv.ROUTE_ANALYTICS.map((file) => file.rows.length)).toEqual([3, 3]);
    const rows = rowsOf(exported.csv.ROUTE_ANALYTICS).sort(byRouteId);
    expect(rows).toEqual(reads.filter((row) => row.route_id !== 'split-7').map(asCsv));
  });
});
