import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { PAGE_BYTE_BUDGET } from '../../functions/shared/limits';
import type * as z from '../../functions/shared/zod';
import { createTestAccount } from '../support/accounts';
import { useTestApi } from '../support/fixtures';
import { type ApiResponse, expectError, expectSuccess, joinPages, readAllPages } from '../support/http';
import { strongToken } from '../support/login-tokens';
import {
  ids,
  longText,
  pagesOf,
  rowsOfInvoicePages,
  waypointRow,
  worstNameAttributes,
  writeRouteRows,
} from '../support/paging';
import { exampleRoute, importRoute } from '../support/routes';

/**
 * Paging of the reads that grow with a route: every row comes back exactly once and in order whatever
 * the page size, a realistic route reads in full pages of 1,000 rows, pages of large rows end early by
 * size, and a bad `limit` or a forged `next_token` is a 400 with 1006 naming the field.
 */

type InvoiceStatus = z.infer<typeof routes.InvoiceStatus>;
type DriverRoute = z.infer<typeof driverApp.DriverRoute>;

const fx = useTestApi('paging');
const { request } = fx;
let acme: { accountId: string; key: string };

const asAcme = (path: string) => request('GET', path, { key: acme.key });
const asDriver = (path: string) => request('GET', path, { key: DRIVER_TOKEN });

const DRIVER_TOKEN = strongToken('paging-driver-token');
/** 2026-11-23 07:00 in Chicago. */
const START = Date.UTC(2026, 10, 23, 13, 0);
const HOUR = 3_600_000;

/** 3 waypoints x 2 invoices x 20 items: 126 invoice and item rows. */
const invoiceRoute = exampleRoute('inv-1', { waypoints: 3, invoicesPerWaypoint: 2, itemsPerInvoice: 20 });
const longRoute = exampleRoute('long-1', { waypoints: 53, invoicesPerWaypoint: 0 });
/**
 * A realistic route longer than a full page: 1,100 waypoints of one invoice of one item, 2,200 invoice and
 * item rows. Its driver has no other route. Its import took 16 s with this file alone and over 60 s (the
 * usual wait) in a whole run on two cores: it gets REALISTIC_IMPORT_DEADLINE_MS.
 */
const REALISTIC_WAYPOINTS = 1100;
const REALISTIC_IMPORT_DEADLINE_MS = 180_000;
const realisticRoute = exampleRoute('real-1', {
  waypoints: REALISTIC_WAYPOINTS,
  itemsPerInvoice: 1,
  driverId: 'realistic-driver',
});
const REALISTIC_DRIVER_TOKEN = strongToken('paging-realistic-driver-token');
/** Two routes of the driver (started first, active second): 4 + 6 waypoints. */
const driverRoutes = [
  exampleRoute('drv-1', { waypoints: 4, driverId: 'paging-driver', startTime: START }),
  exampleRoute('drv-2', { waypoints: 6, driverId: 'paging-driver', startTime: START + HOUR }),
];
/** Its invoice rows are replaced by worst-case ones. */
const worstRoute = exampleRoute('worst-1', { waypoints: 1, invoicesPerWaypoint: 0 });
/** More routes on one date. */
const sameDay = Array.from({ length: 7 }, (_, index) =>
  exampleRoute(`day-${index}`, { waypoints: 1, startTime: START + index * 60_000 }),
);

beforeAll(async () => {
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1', timeZone: 'America/Chicago' }]);
  for (const [driverId, name, token] of [
    ['paging-driver', 'Pat', DRIVER_TOKEN],
    ['realistic-driver', 'Ray', REALISTIC_DRIVER_TOKEN],
  ]) {
    const body = { driver_id: driverId, driver_name: name, login_token: token };
    expectSuccess(await request('POST', '/dcs/dc-1/drivers', { key: acme.key, body }), drivers.createDriver);
  }
  for (const route of [invoiceRoute, longRoute, worstRoute, realisticRoute, ...driverRoutes, ...sameDay]) {
    const deadline = route === realisticRoute ? REALISTIC_IMPORT_DEADLINE_MS : undefined;
    await importRoute(fx.api.url, acme.key, 'dc-1', route, deadline);
  }
  const started = await request('POST', '/driver/routes/drv-1/start', {
    key: DRIVER_TOKEN,
    body: { timestamp: Date.now() - 60_000 },
  });
  expectSuccess(started, driverApp.startDriverRoute);
  for (let index = 0; index < 5; index++) {
    const record = await request('POST', '/driver/routes/drv-1/accounting', {
      key: DRIVER_TOKEN,
      body: { id: `cash-${index}`, cash_received_cents: 100 * index, cash_container_id: 'bag-1' },
    });
    expectSuccess(record, driverApp.addDriverAccountingRecord);
  }
}, 360_000);

describe('GET /dcs/{dc_id}/routes/{route_id}/invoices', () => {
  const path = '/dcs/dc-1/routes/inv-1/invoices';
  const imported = invoiceRoute.waypoints.flatMap((waypoint) => waypoint.invoices);
  /** The rows of the route partition as the import wrote them: each invoice, then its items. */
  const importedRows = imported.flatMap((invoice) => [invoice.id, ...invoice.items.map((item) => item.id)]);

  const rowsOf = rowsOfInvoicePages;

  it.each([1, 7, 40])('returns every row once, in import order, %i rows a page', async (limit) => {
    const pages = (await pagesOf(
      asAcme,
      path,
      routes.getInvoiceStatus,
      'invoices',
      limit,
    )) as InvoiceStatus[][];
    expect(rowsOf(pages)).toEqual(importedRows);
    for (const page of pages) {
      const rowCount = page.reduce(
        (sum, invoice, index) => sum + invoice.items.length + (index === 0 ? 0 : 1),
        0,
      );
      expect(rowCount).toBeLessThanOrEqual(limit);
    }
  });

  it('repeats a cut invoice on the next page under its id, with its payment method and name attributes', async () => {
    const pages = await readAllPages(asAcme, path, routes.getInvoiceStatus, { limit: '7' });
    const joined = joinPages<InvoiceStatus>(pages, 'invoices', 'items');
    const whole = joinPages<InvoiceStatus>(
      await readAllPages(asAcme, path, routes.getInvoiceStatus),
      'invoices',
      'items',
    );
    expect(joined).toEqual(whole);
    expect(joined.map((invoice) => invoice.id)).toEqual(imported.map((invoice) => invoice.id));
    const [first, second] = pages.map((page) => page.invoices as InvoiceStatus[]);
    // 7 rows: the first invoice and 6 of its 20 items; the next page goes on with the same invoice.
    expect(first?.map((invoice) => invoice.id)).toEqual([imported[0]?.id]);
    expect(second?.[0]).toMatchObject({
      id: imported[0]?.id,
      payment_method: 'CASH',
      invoice_name_attributes: [{ key: 'invoice_number', value: 'INV-0-0' }],
    });
    expect(second?.[0]?.items.map((item) => item.id)).toEqual(
      imported[0]?.items.slice(6, 13).map((item) => item.id),
    );
  });

  it('answers a short list in one default page, without a next_token', async () => {
    const data = expectSuccess(await asAcme(path), routes.getInvoiceStatus) as {
      invoices: InvoiceStatus[];
      next_token?: string;
    };
    expect(data.next_token).toBeUndefined();
    expect(rowsOf([data.invoices])).toEqual(importedRows);
  });

  it('reads a realistic route in full pages of 1,000 rows', async () => {
    const pages = (await pagesOf(
      asAcme,
      '/dcs/dc-1/routes/real-1/invoices',
      routes.getInvoiceStatus,
      'invoices',
    )) as InvoiceStatus[][];
    const realisticRows = realisticRoute.waypoints
      .flatMap((waypoint) => waypoint.invoices)
      .flatMap((invoice) => [invoice.id, ...invoice.items.map((item) => item.id)]);
    expect(pages.map((page) => rowsOf([page]).length)).toEqual([1000, 1000, 200]);
    expect(rowsOf(pages)).toEqual(realisticRows);
  });
});

describe('a route whose invoices are all worst-case rows', () => {
  /** Invoices with 50 name attributes of maximum length, in characters JSON escapes twice: 129 KB each. */
  const WORST_INVOICES = 60;
  /** Each with items whose texts are at their maximum length too. */
  const ITEMS_PER_INVOICE = 3;
  const path = '/dcs/dc-1/routes/worst-1/invoices';
  const invoices = Array.from({ length: WORST_INVOICES }, (_, index) => ({
    id: `worst-inv-${index}`,
    waypointId: 'worst-1-wp-0',
    nameAttributes: worstNameAttributes(),
    items: Array.from({ length: ITEMS_PER_INVOICE }, (_, item) => ({
      id: `worst-inv-${index}-item-${item}`,
      sku: longText(128),
      name: longText(200),
      quantity: 1,
      displayUnitOfMeasure: longText(32),
      totalPriceCents: 100,
      currency: 'EUR',
    })),
  }));
  const worstRows = invoices.flatMap((invoice) => [invoice.id, ...invoice.items.map((item) => item.id)]);

  beforeAll(async () => {
    // 7.7 MB of rows, written as the import writes them.
    const waypoint = waypointRow(
      0,
      { id: 'worst-1-wp-0', location: { latitude: 41.9, longitude: -87.6 } },
      invoices.map((invoice) => invoice.id),
    );
    await writeRouteRows(acme.accountId, 'worst-1', [waypoint], [invoices], ['INVOICE', 'ITEM']);
  }, 120_000);

  it('ends each page by size, long before 1,000 rows, with every row once and in order', async () => {
    const pages = await readAllPages(asAcme, path, routes.getInvoiceStatus);
    const invoicePages = pages.map((page) => page.invoices as InvoiceStatus[]);
    const rowCounts = invoicePages.map((page) =>
      page.reduce((sum, invoice) => sum + 1 + invoice.items.length, 0),
    );
    // All 240 rows are fewer than a default page: only their size ends the pages.
    expect(worstRows.length).toBeLessThan(routes.ROUTE_PAGE_SIZES.invoiceRows.defaultLimit);
    expect(rowCounts.length).toBeGreaterThanOrEqual(2);
    expect(rowsOfInvoicePages(invoicePages)).toEqual(worstRows);
    expect(joinPages<InvoiceStatus>(pages, 'invoices', 'items').map((invoice) => invoice.id)).toEqual(
      invoices.map((invoice) => invoice.id),
    );
  });

  it('answers every page within the byte budget, where the whole list would not fit Lambda’s response', async () => {
    let total = 0;
    let nextToken: string | undefined;
    do {
      const response = await asAcme(nextToken ? `${path}?next_token=${encodeURIComponent(nextToken)}` : path);
      expect(response.status, response.text.slice(0, 300)).toBe(200);
      // In Lambda's response the body is escaped once more.
      const escaped = Buffer.byteLength(JSON.stringify(response.text));
      expect(escaped).toBeLessThan(PAGE_BYTE_BUDGET + 64 * 1024);
      total += escaped;
      nextToken = (response.body.data as { next_token?: string }).next_token;
    } while (nextToken);
    expect(total).toBeGreaterThan(6_291_556);
  });

  it('cuts an invoice at any page size and continues it under its id', async () => {
    const pages = await readAllPages(asAcme, path, routes.getInvoiceStatus, { limit: '5' });
    expect(rowsOfInvoicePages(pages.map((page) => page.invoices as InvoiceStatus[]))).toEqual(worstRows);
  });
});

describe('GET /dcs/{dc_id}/routes/{route_id}/waypoints', () => {
  const path = '/dcs/dc-1/routes/long-1/waypoints';
  const imported = longRoute.waypoints.map((waypoint) => waypoint.id);

  it.each([1, 10, 50])('returns every waypoint once, in sequence, %i a page', async (limit) => {
    const pages = await pagesOf(asAcme, path, routes.listWaypoints, 'waypoints', limit);
    expect(ids(pages)).toEqual(imported);
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
  });

  it('reads a realistic route in full pages of 1,000 waypoints', async () => {
    const pages = await pagesOf(
      asAcme,
      '/dcs/dc-1/routes/real-1/waypoints',
      routes.listWaypoints,
      'waypoints',
    );
    expect(pages.map((page) => page.length)).toEqual([1000, REALISTIC_WAYPOINTS - 1000]);
    expect(ids(pages)).toEqual(realisticRoute.waypoints.map((waypoint) => waypoint.id));
  });
});

describe('GET /dcs/{dc_id}/routes/{route_id}/accounting', () => {
  const path = '/dcs/dc-1/routes/drv-1/accounting';
  const created = Array.from({ length: 5 }, (_, index) => `cash-${index}`);

  it.each([1, 2, 5])('returns every record once, oldest first, %i a page', async (limit) => {
    const pages = await pagesOf(asAcme, path, routes.getRouteAccounting, 'records', limit);
    expect(ids(pages)).toEqual(created);
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
  });

  it('answers all of a short list in the default page, without a next_token', async () => {
    const data = expectSuccess(await asAcme(path), routes.getRouteAccounting) as Record<string, unknown>;
    expect(data.next_token).toBeUndefined();
    expect((data.records as { id: string }[]).map((record) => record.id)).toEqual(created);
  });
});

describe('GET /dcs/{dc_id}/routes/find_by_date/{date}', () => {
  const path = '/dcs/dc-1/routes/find_by_date/2026-11-23';
  /** Every route of this file starts on 2026-11-23 in Chicago, the same-day ones a minute apart. */
  const expected = [invoiceRoute, longRoute, worstRoute, realisticRoute, ...driverRoutes, ...sameDay]
    .map((route) => route?.id)
    .sort();

  it.each([1, 2, 5])('returns every route once, by start time, %i a page', async (limit) => {
    const pages = await pagesOf(asAcme, path, routes.findRoutesByDate, 'routes', limit);
    expect([...ids(pages)].sort()).toEqual(expected);
    expect(new Set(ids(pages)).size).toBe(expected.length);
    const starts = pages.flat().map((route) => (route as unknown as { start_time: number }).start_time);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('answers all routes of the date in the default page, without a next_token', async () => {
    const data = expectSuccess(await asAcme(path), routes.findRoutesByDate) as Record<string, unknown>;
    expect(data.routes).toHaveLength(expected.length);
    expect(data.next_token).toBeUndefined();
  });
});

describe('GET /driver/routes', () => {
  const expected = driverRoutes.map((route) => ({
    id: route.id,
    waypoints: route.waypoints.map((waypoint) => waypoint.id),
  }));
  const shape = (joined: DriverRoute[]) =>
    joined.map((route) => ({ id: route.id, waypoints: route.waypoints.map((waypoint) => waypoint.id) }));

  it.each([1, 3, 8])('returns every waypoint once, by route start and sequence, %i a page', async (limit) => {
    const pages = await readAllPages(asDriver, '/driver/routes', driverApp.listDriverRoutes, {
      limit: String(limit),
    });
    for (const page of pages) {
      const waypoints = (page.routes as DriverRoute[]).flatMap((route) => route.waypoints);
      expect(waypoints.length).toBeLessThanOrEqual(limit);
    }
    expect(shape(joinPages<DriverRoute>(pages, 'routes', 'waypoints'))).toEqual(expected);
  });

  it('cuts the second route at a page of 8 waypoints and continues it under its id', async () => {
    const data = expectSuccess(await asDriver('/driver/routes?limit=8'), driverApp.listDriverRoutes) as {
      routes: DriverRoute[];
      next_token?: string;
    };
    expect(data.next_token).toEqual(expect.any(String));
    expect(shape(data.routes)).toEqual([
      expected[0],
      { id: expected[1]?.id, waypoints: expected[1]?.waypoints.slice(0, 4) },
    ]);
    // The cut route comes whole again (header, invoices) with the waypoints that follow.
    const next = expectSuccess(
      await asDriver(`/driver/routes?limit=8&next_token=${encodeURIComponent(data.next_token as string)}`),
      driverApp.listDriverRoutes,
    ) as { routes: DriverRoute[] };
    expect(shape(next.routes)).toEqual([{ id: expected[1]?.id, waypoints: expected[1]?.waypoints.slice(4) }]);
    expect(next.routes[0]?.waypoints[0]?.invoices.map((invoice) => invoice.id)).toEqual(
      driverRoutes[1]?.waypoints[4]?.invoices.map((invoice) => invoice.id),
    );
  });
});

describe('GET /driver/routes of a realistic route', () => {
  it('reads it in full pages of 1,000 waypoints with their invoices', async () => {
    const get = (path: string) => request('GET', path, { key: REALISTIC_DRIVER_TOKEN });
    const pages = await readAllPages(get, '/driver/routes', driverApp.listDriverRoutes);
    const waypointsOf = (page: Record<string, unknown>) =>
      (page.routes as DriverRoute[]).flatMap((route) => route.waypoints);
    expect(pages.map((page) => waypointsOf(page).length)).toEqual([1000, REALISTIC_WAYPOINTS - 1000]);
    const joined = joinPages<DriverRoute>(pages, 'routes', 'waypoints');
    expect(joined.map((route) => route.id)).toEqual([realisticRoute.id]);
    expect(joined[0]?.waypoints.map((waypoint) => waypoint.invoices[0]?.items[0]?.id)).toEqual(
      realisticRoute.waypoints.map((waypoint) => waypoint.invoices[0]?.items[0]?.id),
    );
  });
});

describe('GET /driver/routes of waypoints with worst-case invoices', () => {
  /** 12 waypoints, each with 5 invoices of 50 name attributes of maximum length: 630 KB a waypoint. */
  const WAYPOINTS = 12;
  const INVOICES_PER_WAYPOINT = 5;
  const TOKEN = strongToken('paging-worst-driver-token');
  const worstDriverRoute = exampleRoute('worst-drv', {
    waypoints: WAYPOINTS,
    invoicesPerWaypoint: 0,
    driverId: 'worst-driver',
    // Another date: the routes of 2026-11-23 are listed above.
    startTime: START + 48 * HOUR,
  });
  const get = (path: string) => request('GET', path, { key: TOKEN });

  beforeAll(async () => {
    const driver = await request('POST', '/dcs/dc-1/drivers', {
      key: acme.key,
      body: { driver_id: 'worst-driver', driver_name: 'Wes', login_token: TOKEN },
    });
    expectSuccess(driver, drivers.createDriver);
    await importRoute(fx.api.url, acme.key, 'dc-1', worstDriverRoute);
    // 7.5 MB of rows, written as the import writes them.
    const waypoints = worstDriverRoute.waypoints.map((waypoint, sequence) => waypointRow(sequence, waypoint));
    const invoices = waypoints.map((waypoint) =>
      Array.from({ length: INVOICES_PER_WAYPOINT }, (_, index) => ({
        id: `${waypoint.id}-worst-inv-${index}`,
        waypointId: waypoint.id,
        nameAttributes: worstNameAttributes(),
        items: [],
      })),
    );
    await writeRouteRows(acme.accountId, 'worst-drv', waypoints, invoices, ['INVOICE']);
  }, 120_000);

  it('ends each page by size, every waypoint once and in order with its invoices', async () => {
    const pages = await readAllPages(get, '/driver/routes', driverApp.listDriverRoutes);
    const waypointCounts = pages.map((page) =>
      (page.routes as DriverRoute[]).reduce((sum, route) => sum + route.waypoints.length, 0),
    );
    // 12 waypoints are fewer than a default page: only their size ends the pages.
    expect(WAYPOINTS).toBeLessThan(driverApp.DRIVER_ROUTE_WAYPOINTS_PAGE.defaultLimit);
    expect(waypointCounts.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);
    for (const page of pages) {
      expect(Buffer.byteLength(JSON.stringify(JSON.stringify(page)))).toBeLessThan(
        PAGE_BYTE_BUDGET + 64 * 1024,
      );
    }
    const joined = joinPages<DriverRoute>(pages, 'routes', 'waypoints');
    expect(joined.map((route) => route.id)).toEqual(['worst-drv']);
    expect(joined[0]?.waypoints.map((waypoint) => waypoint.id)).toEqual(
      worstDriverRoute.waypoints.map((waypoint) => waypoint.id),
    );
    for (const waypoint of joined[0]?.waypoints ?? []) {
      expect(waypoint.invoices.map((invoice) => invoice.id)).toEqual(
        Array.from({ length: INVOICES_PER_WAYPOINT }, (_, index) => `${waypoint.id}-worst-inv-${index}`),
      );
    }
  });
});

describe('bad paging parameters', () => {
  const lists: [string, (path: string) => Promise<ApiResponse>, number][] = [
    ['/dcs/dc-1/routes/inv-1/invoices', asAcme, routes.ROUTE_PAGE_SIZES.invoiceRows.maxLimit],
    ['/dcs/dc-1/routes/long-1/waypoints', asAcme, routes.ROUTE_PAGE_SIZES.waypoints.maxLimit],
    ['/dcs/dc-1/routes/drv-1/accounting', asAcme, routes.ROUTE_PAGE_SIZES.accountingRecords.maxLimit],
    ['/dcs/dc-1/routes/find_by_date/2026-11-23', asAcme, routes.ROUTE_PAGE_SIZES.routesOfDate.maxLimit],
    ['/driver/routes', asDriver, driverApp.DRIVER_ROUTE_WAYPOINTS_PAGE.maxLimit],
  ];
  const token = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');
  const partition = (routeId: string) => `ROUTE#${acme.accountId}/${routeId}`;

  it.each(lists)(
    '%s: a limit out of range or not an integer is 400 with 1006 naming query.limit',
    async (path, get, max) => {
      for (const limit of ['0', '-1', String(max + 1), '1.5', 'ten', '0x10', '1e3']) {
        expect(expectError(await get(`${path}?limit=${limit}`), 400, 1006)).toContain('query.limit');
      }
    },
  );

  it.each(lists)('%s: a forged next_token is 400 with 1006 naming query.next_token', async (path, get) => {
    const forged = [
      'not-a-token',
      token({ pk: partition('inv-1') }),
      token({ pk: 'ACCOUNT#someone-else', sk: 'WP#00001' }),
      // Another list's rows of the same route.
      token({ pk: partition('long-1'), sk: 'ATTEMPT#x' }),
      token({ pk: partition('drv-2'), sk: 'ROUTE', gsi2pk: 'ROUTES_BY_DATE#x', gsi2sk: '0' }),
    ];
    for (const nextToken of forged) {
      const response = await get(`${path}?next_token=${encodeURIComponent(nextToken)}`);
      expect(expectError(response, 400, 1006)).toContain('query.next_token');
    }
  });

  it("refuses an invoices token naming rows the route's header does not hold, though that page's read starts before it", async () => {
    const forged = [
      // A shard inv-1 does not have (its rows all fit its own partition), another route's rows and shard.
      token({ pk: `ROUTE_ROWS#${acme.accountId}/inv-1#5`, sk: 'I#00000#0000' }),
      token({ pk: partition('long-1'), sk: 'I#00000#0000' }),
      token({ pk: `ROUTE_ROWS#${acme.accountId}/long-1#1`, sk: 'I#00000#0000' }),
    ];
    for (const nextToken of forged) {
      const response = await asAcme(`/dcs/dc-1/routes/inv-1/invoices?next_token=${nextToken}`);
      expect(expectError(response, 400, 1006)).toContain('query.next_token');
    }
    // A good token on a route that is not there: the route is what is missing (400 here, as the spec answers it).
    const { next_token } = expectSuccess(
      await asAcme('/dcs/dc-1/routes/inv-1/invoices?limit=1'),
      routes.getInvoiceStatus,
    ) as { next_token: string };
    expectError(await asAcme(`/dcs/dc-1/routes/absent-1/invoices?next_token=${next_token}`), 400, 3003);
  });

  it('refuses a token of another route’s list', async () => {
    const { next_token } = expectSuccess(
      await asAcme('/dcs/dc-1/routes/long-1/waypoints?limit=1'),
      routes.listWaypoints,
    ) as { next_token: string };
    const response = await asAcme(`/dcs/dc-1/routes/inv-1/waypoints?next_token=${next_token}`);
    expect(expectError(response, 400, 1006)).toContain('query.next_token');
  });
});
