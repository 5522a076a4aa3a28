import { describe, expect, it } from 'vitest';
import * as analytics from '../../functions/api/analytics/index';
import * as driverApp from '../../functions/api/driver-app/index';
import {
  addDays,
  asAcme,
  asCsv,
  attemptAnalytics,
  CHI_NAME,
  CHICAGO,
  CUSTOMER_A,
  calcAt,
  type DownloadFile,
  DRIVER_NAME,
  downloadCsv,
  exportRoutes,
  localIso,
  on,
  P,
  ROUTE_NAME,
  type Row,
  request,
  requestDownload,
  routeAnalytics,
  rowsOf,
  runExport,
  useAnalyticsApi,
  waitForFiles,
  zoned,
} from '../support/analytics';
import { expectError, expectSuccess, readAllPages } from '../support/http';
import { strongToken } from '../support/login-tokens';

/** The analytics of one route driven through the driver app, every number worked out by hand. */
const ax = useAnalyticsApi('analytics-driven-route', 'driven-route');

describe('analytics of a route driven through the driver app', () => {
  const token = strongToken('calc-driver-token-01');
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

  /** A time of the route's day as the analytics write it: local ISO 8601 with its offset. */
  const local = (time: string) => localIso(calcAt(time), CHICAGO);

  /** Worked out by hand from the route, the visits below and the trace. */
  const expectedRoute: Row = {
    ...identity,
    planned_route_start_timestamp: local('09:00'),
    planned_route_start_epoch_ms: calcAt('09:00'),
    imported_customers_count: 5,
    successful_customers_count: 1, // B (its last visit delivered both items)
    failed_customers_count: 1, // C
    try_again_later_customers_count: 1, // D
    mixed_status_customers_count: 1, // A (two items delivered, one failed)
    total_visited_customers_count: 4,
    total_unvisited_customers_count: 1, // E
    actual_route_departure_time: local('09:05'),
    actual_route_departure_epoch_ms: calcAt('09:05'),
    actual_route_arrival_time: local('15:00'),
    actual_route_arrival_epoch_ms: calcAt('15:00'),
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
    planned_cash_currency: 'USD', // every item's
    cash_received_cents: 1734, // 1500 + 234
    cash_received_currency: 'USD',
  };

  const windowsB = `${local('12:00')}/${local('13:00')}; ${local('14:00')}/${local('15:00')}`;
  /** The columns naming a waypoint and its customer, the same in every attempt row at it. */
  const atWaypoint = (id: string, customerName: string) => ({
    waypoint_id: `calc-wp-${id}`,
    customer_id: `cust-${id}`,
    customer_name: customerName,
  });
  const waypoint = {
    a: atWaypoint('a', CUSTOMER_A),
    b: atWaypoint('b', 'Bäckerei “B”'),
    c: atWaypoint('c', 'Café, "C"'),
    d: atWaypoint('d', 'Dee'),
  };
  const expectedAttempts: Row[] = [
    {
      ...identity,
      ...waypoint.a,
      attempt_id: 'att-a1',
      attempt_number: 1,
      visit_start_timestamp: local('10:00'),
      visit_start_epoch_ms: calcAt('10:00'),
      visit_meters_from_customer: 111, // 0.001° north of A
      aggregate_visit_status: 'MIXED',
      waypoint_time_windows: `${local('10:00')}/${local('11:00')}`,
      visit_timeliness: 'ON_TIME', // at the window's start (inclusive)
      items_successful: 2,
      items_failed: 1,
      proof_count: 0,
      signer_name: null,
    },
    {
      ...identity,
      ...waypoint.b,
      attempt_id: 'att-b1',
      attempt_number: 1,
      visit_start_timestamp: local('10:30'),
      visit_start_epoch_ms: calcAt('10:30'),
      visit_meters_from_customer: null, // no location reported
      aggregate_visit_status: 'VISIT_LATER',
      waypoint_time_windows: windowsB,
      visit_timeliness: 'EARLY',
      items_successful: 0,
      items_failed: 0,
      proof_count: 0,
      signer_name: null,
    },
    {
      ...identity,
      ...waypoint.c,
      attempt_id: 'att-c1',
      attempt_number: 1,
      visit_start_timestamp: local('11:30'),
      visit_start_epoch_ms: calcAt('11:30'),
      visit_meters_from_customer: 0,
      aggregate_visit_status: 'FAILED',
      // Opened the day before the route's date.
      waypoint_time_windows: `${localIso(zoned(addDays(P, -1), '23:00', CHICAGO), CHICAGO)}/${local('09:30')}`,
      visit_timeliness: 'LATE',
      items_successful: 0,
      items_failed: 1,
      proof_count: 0,
      signer_name: null,
    },
    {
      ...identity,
      ...waypoint.d,
      attempt_id: 'att-d1',
      attempt_number: 1,
      visit_start_timestamp: local('11:45'),
      visit_start_epoch_ms: calcAt('11:45'),
      visit_meters_from_customer: 1112, // 0.01° north of D
      aggregate_visit_status: 'VISIT_LATER',
      waypoint_time_windows: expect.toBeOneOf(['', null]),
      visit_timeliness: 'NO_WINDOW',
      items_successful: 1,
      items_failed: 0,
      proof_count: 0,
      signer_name: null,
    },
    {
      ...identity,
      ...waypoint.b,
      attempt_id: 'att-b2',
      attempt_number: 2,
      visit_start_timestamp: local('13:00'),
      visit_start_epoch_ms: calcAt('13:00'),
      visit_meters_from_customer: null,
      aggregate_visit_status: 'FAILED',
      waypoint_time_windows: windowsB,
      visit_timeliness: 'LATE', // at the first window's end (exclusive), before the second opens
      items_successful: 0,
      items_failed: 2,
      proof_count: 0,
      signer_name: null,
    },
    {
      ...identity,
      ...waypoint.b,
      attempt_id: 'att-b3',
      attempt_number: 3,
      visit_start_timestamp: local('14:30'),
      visit_start_epoch_ms: calcAt('14:30'),
      visit_meters_from_customer: 222, // 0.002° north of B
      aggregate_visit_status: 'SUCCESSFUL',
      waypoint_time_windows: windowsB,
      visit_timeliness: 'ON_TIME',
      items_successful: 2,
      items_failed: 0,
      proof_count: 0,
      signer_name: null,
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
    expect(Object.keys(finishedRoute).sort()).toEqual([...ax.routeColumns].sort());
    expect(finishedRoute).toMatchObject(expectedRoute);
  });

  it('lists one record per attempt, in the order they happened', async () => {
    finishedAttempts = await attemptAnalytics('chi', 'calc-1');
    for (const row of finishedAttempts)
      expect(Object.keys(row).sort()).toEqual([...ax.attemptColumns].sort());
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
    const exported = await exportRoutes(['chi', 'chi'], P);
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
