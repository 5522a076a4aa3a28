import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import * as analytics from '../../functions/api/analytics/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { createAccountWithUsageKey } from '../../functions/domain/usage-keys';
import { functionOf } from './cdk';
import { type CallOptions, call, expectSuccess } from './http';
import { startTestApi, type TestApi } from './local-api';
import { strongToken } from './login-tokens';
import { importRoute } from './routes';

/*
 * Analytics end to end (API §2 and §4.5, DESIGN §6): computed when a route is finished, read per route,
 * exported per DC and DC-local date as CSV files in the bucket. Every expected number of the driven route
 * is worked out by hand: all its places lie on the meridian 87.65° W, where 0.01° of latitude is
 * 1111.95 m (R = 6371.0088 km); planned legs add the road factor 1.3 and drive at 30 km/h, so a leg of
 * 0.01° takes 173.464 s.
 */

export type Value = string | number | null;
export type Row = Record<string, Value>;
export type AnalyticsType = 'ROUTE_ANALYTICS' | 'ATTEMPT_ANALYTICS';
export type ColumnDefinitions = Record<string, { column_name: string; column_description: string }>;
export interface DownloadFile {
  file_type: string;
  download_link: string;
  expiration_timestamp: number;
  download_type: AnalyticsType;
}

/** Small files, so that a handful of rows splits (read by the export worker when it loads). */
export const ROWS_PER_FILE = 3;

/** The running API of the test file and what its setup made (from the file's beforeAll on). */
export const ax = {} as {
  api: TestApi;
  acme: { accountId: string; key: string };
  globex: { accountId: string; key: string };
  routeColumns: string[];
  attemptColumns: string[];
};

export const request = (method: string, path: string, options: CallOptions = {}) =>
  call(ax.api.url, method, path, options);
export const asAcme = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: ax.acme.key, body });
export const asGlobex = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: ax.globex.key, body });

// ---------------------------------------------------------------------------------------------------
// Time: DC-local wall clocks, written independently of the service's formatters
// ---------------------------------------------------------------------------------------------------

export const DAY = 86_400_000;
export const CHICAGO = 'America/Chicago';
export const TOKYO = 'Asia/Tokyo';

/** 'YYYY-MM-DD HH:MM:SS' of an instant in a zone (the sv-SE locale writes dates that way). */
export const wall = (epoch: number, zone: string) =>
  new Date(epoch).toLocaleString('sv-SE', { timeZone: zone });
/**
 * ISO 8601 local date-time with the zone's UTC offset at that instant ('2025-11-02T01:30:00-06:00'): the wall
 * clock above and the offset as Intl names it ('GMT-06:00', or 'GMT' for UTC itself).
 */
export function localIso(epoch: number, zone: string): string {
  const offset = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(epoch))
    .find((part) => part.type === 'timeZoneName')?.value;
  return `${wall(epoch, zone).replace(' ', 'T')}${offset === 'GMT' ? '+00:00' : offset?.replace('GMT', '')}`;
}
export const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
export const utcDate = (epoch: number) => new Date(epoch).toISOString().slice(0, 10);

/** The instant a zone's clocks show `date time` ('HH:MM'). */
export function zoned(date: string, time: string, zone: string): number {
  const target = Date.parse(`${date}T${time}:00Z`);
  let epoch = target;
  for (let round = 0; round < 3; round++) {
    epoch += target - Date.parse(`${wall(epoch, zone).replace(' ', 'T')}Z`);
  }
  if (wall(epoch, zone) !== `${date} ${time}:00`) throw new Error(`${date} ${time} is not a time in ${zone}`);
  return epoch;
}

/** Dates in Chicago, relative to today: every time reported for them lies in the past. */
export const TODAY = wall(Date.now(), CHICAGO).slice(0, 10);
/** The driven route's service date. */
export const P = addDays(TODAY, -3);
/** The near-midnight routes' date (and the day before). */
export const M = addDays(TODAY, -10);
/** The date of the routes that fill several files. */
export const S = addDays(TODAY, -20);
/** A date without routes in any DC. */
export const EMPTY = addDays(TODAY, -60);

// ---------------------------------------------------------------------------------------------------
// Names that CSV has to quote, and the DESIGN §6 column lists
// ---------------------------------------------------------------------------------------------------

export const CHI_NAME = 'Chicago "Loop", Zoë';
export const TYO_NAME = '東京 DC, "Shibuya"';
export const ROUTE_NAME = 'Route "Nord", Zoë';
export const DRIVER_NAME = 'Zoë "Q", Ltd.';
export const CUSTOMER_A = 'Zoë "Q", Ltd.\nNorth';

// ---------------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------------

export const on = (latitude: number) => ({ latitude, longitude: -87.65 });
export const WAREHOUSE = { id: 'wh-calc', name: 'Dock, "A"', address: '1 Dock St', location: on(41.8) };
export const calcAt = (time: string) => zoned(P, time, CHICAGO);

export const item = (id: string, cents: number) => ({
  id,
  sku: `SKU-${id}`,
  name: `Item ${id}`,
  quantity: 1,
  display_unit_of_measure: 'EA',
  total_price_cents: cents,
  currency: 'USD',
});
export const invoice = (id: string, paymentMethod: string | undefined, items: [string, number][]) => ({
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
export const calc = {
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
export const minimalRoute = (id: string, startTime: number) => ({
  id,
  name: id,
  start_time: startTime,
  activate_after_successful_import: true,
  waypoints: [{ id: `${id}-wp`, customer_id: `${id}-customer`, location: on(41.9) }],
});

/** Near midnight: 23:50 the day before M and 00:10 on M, local to each DC. */
export const MIDNIGHT = {
  'mid-chi-late': { dc: 'chi', start: zoned(addDays(M, -1), '23:50', CHICAGO), date: addDays(M, -1) },
  'mid-chi-early': { dc: 'chi', start: zoned(M, '00:10', CHICAGO), date: M },
  'mid-tyo-late': { dc: 'tyo', start: zoned(addDays(M, -1), '23:50', TOKYO), date: addDays(M, -1) },
  'mid-tyo-early': { dc: 'tyo', start: zoned(M, '00:10', TOKYO), date: M },
} as const;

/**
 * Chicago's fall-back date: 01:30 happens twice, first in CDT (06:30 UTC), then in CST (07:30 UTC). A route
 * starts at each.
 */
export const FALL_BACK = {
  date: '2025-11-02',
  starts: { 'dst-cdt': Date.UTC(2025, 10, 2, 6, 30), 'dst-cst': Date.UTC(2025, 10, 2, 7, 30) },
  /** Names a spreadsheet would run as formulas, as an ERP could send them. */
  names: { 'dst-cdt': '=HYPERLINK("https://example.com","open")', 'dst-cst': '-2+3' },
} as const;

export const SPLIT_IDS = Array.from({ length: 7 }, (_, index) => `split-${index + 1}`);

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

export async function createAccount(name: string, dcs: { dcId: string; timeZone: string; name?: string }[]) {
  const created = await createAccountWithUsageKey({ name, dcs });
  return { accountId: created.accountId, key: created.apiKey };
}

export async function routeAnalytics(dcId: string, routeId: string): Promise<Row> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/analytics/route`);
  return (expectSuccess(response, analytics.getRouteAnalytics) as { route_analytics: Row }).route_analytics;
}

export async function attemptAnalytics(dcId: string, routeId: string): Promise<Row[]> {
  const response = await asAcme('GET', `/dcs/${dcId}/routes/${routeId}/analytics/attempts`);
  return (expectSuccess(response, analytics.getAttemptAnalytics) as { attempt_analytics: Row[] })
    .attempt_analytics;
}

export async function finishByKey(dcId: string, routeId: string) {
  const response = await asAcme('PATCH', `/dcs/${dcId}/routes/${routeId}/finish`);
  expectSuccess(response, routes.finishRoute);
}

export interface DownloadBody {
  dc_ids: string[];
  from_date: string;
  to_date: string;
  analytics_types: string[];
}

export const downloadBody = (overrides: Partial<DownloadBody> = {}): DownloadBody => ({
  dc_ids: ['chi'],
  from_date: '2026-01-01',
  to_date: '2026-01-31',
  analytics_types: ['ROUTE_ANALYTICS'],
  ...overrides,
});

export const requestDownload = (body: DownloadBody, key = ax.acme.key): Promise<string> =>
  requestDownloadFrom(ax.api.url, key, body);

/** Requests a download of `body` from the API at `apiUrl` with `key`: its txid. */
export async function requestDownloadFrom(apiUrl: string, key: string, body: DownloadBody): Promise<string> {
  const response = await call(apiUrl, 'POST', '/analytics/download-requests', { key, body });
  const { download_request_txid } = expectSuccess(response, analytics.requestAnalyticsDownload) as {
    download_request_txid: string;
  };
  expect(download_request_txid).toMatch(/\S/);
  return download_request_txid;
}

export const filesPath = (txid: string) => `/analytics/download-requests/${encodeURIComponent(txid)}/files`;

/** Polls the files until they are ready (202 meanwhile, with the txid); fails after 60 s. */
export async function waitForFiles(txid: string): Promise<DownloadFile[]> {
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
        // Presigned until the end of the signing session, which signs for its first half: 30 to 60 minutes.
        expect(file.expiration_timestamp).toBeGreaterThan(before + 1_800_000 - 60_000);
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

export interface CsvFile {
  text: string;
  header: string[];
  rows: Record<string, string>[];
}

/** GETs a download link with a plain fetch (no Authorization header) and parses it with csv-parse. */
export async function downloadCsv(link: string): Promise<CsvFile> {
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

export interface Export {
  files: DownloadFile[];
  /** Per type: every file, in the order listed. */
  csv: Record<AnalyticsType, CsvFile[]>;
}

/** Requests a download, waits for its files and downloads them all. */
export async function runExport(body: DownloadBody): Promise<Export> {
  const files = await waitForFiles(await requestDownload(body));
  const csv: Record<AnalyticsType, CsvFile[]> = { ROUTE_ANALYTICS: [], ATTEMPT_ANALYTICS: [] };
  for (const file of files) csv[file.download_type].push(await downloadCsv(file.download_link));
  const columns = { ROUTE_ANALYTICS: ax.routeColumns, ATTEMPT_ANALYTICS: ax.attemptColumns };
  for (const type of ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS'] as const) {
    // One or more files of each type asked for, none of the others; each starts with the column ids.
    if (body.analytics_types.includes(type)) expect(csv[type].length, type).toBeGreaterThan(0);
    else expect(csv[type], type).toEqual([]);
    for (const file of csv[type]) expect(file.header).toEqual(columns[type]);
  }
  return { files, csv };
}

/** The route analytics of these DCs from one DC-local date to another, exported (runExport). */
export const exportRoutes = (dcIds: string[], fromDate: string, toDate = fromDate) =>
  runExport({ dc_ids: dcIds, from_date: fromDate, to_date: toDate, analytics_types: ['ROUTE_ANALYTICS'] });

export const rowsOf = (files: CsvFile[]) => files.flatMap((file) => file.rows);

/** A record as a CSV row: every value a string, null empty. */
export const asCsv = (row: Row) =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? '' : String(value)]));

export const byRouteId = (a: Record<string, Value>, b: Record<string, Value>) =>
  String(a.route_id).localeCompare(String(b.route_id));

// ---------------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------------

/**
 * Starts the file's API (export files of ROWS_PER_FILE rows) in a beforeAll, with Acme (DCs chi and tyo)
 * and Globex (a DC with one of Acme's ids, 'chi', and one of its own; not 'tyo'), and reads the column ids.
 * `driven-route` imports the route calc with its driver drv-z; `service-dates` imports the MIDNIGHT, FALL_BACK
 * and split routes and finishes them by API key. Closes the API in an afterAll.
 */
export function useAnalyticsApi(name: string, seed: 'driven-route' | 'service-dates') {
  // Exports go through the analytics queue and its worker: on a loaded 2-core CI machine a wait can pass 30 s.
  vi.setConfig({ testTimeout: 90_000 });
  beforeAll(async () => {
    ax.api = await startTestApi(name, {
      customize: (stack) =>
        functionOf(stack, 'workers/export-analytics').addEnvironment(
          'ANALYTICS_ROWS_PER_FILE',
          String(ROWS_PER_FILE),
        ),
    });
    ax.acme = await createAccount('Acme', [
      { dcId: 'chi', timeZone: CHICAGO, name: CHI_NAME },
      { dcId: 'tyo', timeZone: TOKYO, name: TYO_NAME },
    ]);
    ax.globex = await createAccount('Globex', [
      { dcId: 'chi', timeZone: CHICAGO },
      { dcId: 'gx', timeZone: 'Europe/Berlin' },
    ]);

    const definitions = await asAcme('GET', '/analytics/column-definitions');
    const data = expectSuccess(definitions, analytics.getColumnDefinitions) as {
      route_analysis_column_definitions: ColumnDefinitions;
      attempt_analysis_column_definitions: ColumnDefinitions;
    };
    ax.routeColumns = Object.keys(data.route_analysis_column_definitions);
    ax.attemptColumns = Object.keys(data.attempt_analysis_column_definitions);

    if (seed === 'driven-route') {
      const driver = await asAcme('POST', '/dcs/chi/drivers', {
        driver_id: 'drv-z',
        driver_name: DRIVER_NAME,
        login_token: strongToken('calc-driver-token-01'),
      });
      expectSuccess(driver, drivers.createDriver);
      await importRoute(ax.api.url, ax.acme.key, 'chi', calc);
      return;
    }
    const simple = [
      ...Object.entries(MIDNIGHT).map(([id, { dc, start }]) => ({ dc, route: minimalRoute(id, start) })),
      ...Object.entries(FALL_BACK.starts).map(([id, start]) => ({
        dc: 'chi',
        route: { ...minimalRoute(id, start), name: FALL_BACK.names[id as keyof typeof FALL_BACK.names] },
      })),
      ...SPLIT_IDS.map((id, index) => ({
        dc: 'chi',
        route: minimalRoute(id, zoned(S, `08:0${index}`, CHICAGO)),
      })),
    ];
    await Promise.all(simple.map(({ dc, route }) => importRoute(ax.api.url, ax.acme.key, dc, route)));
    await Promise.all(simple.map(({ dc, route }) => finishByKey(dc, route.id)));
    // Starting an API and importing routes can take over a minute and a half on a loaded 2-core machine.
  }, 180_000);

  afterAll(async () => {
    await ax.api?.close();
  });
  return ax;
}
