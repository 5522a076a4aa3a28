import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { createTestAccount } from '../support/accounts';
import { type CallOptions, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, expectedInvoices, importRoute, waitForImport } from '../support/routes';

let api: TestApi;
let acme: { accountId: string; key: string };
let globex: { accountId: string; key: string };
const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, options);
const post = (route: unknown, dcId = 'dc-1', key = acme.key) =>
  request('POST', `/dcs/${dcId}/invoiced-routes`, { key, body: { route } });

beforeAll(async () => {
  api = await startTestApi('import');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]);
  globex = await createTestAccount('Globex', [{ dcId: 'gx-1' }]);
  for (const [dcId, driverId] of [
    ['dc-1', 'driver-1'],
    ['dc-2', 'driver-2'],
  ]) {
    const created = await request('POST', `/dcs/${dcId}/drivers`, {
      key: acme.key,
      body: { driver_id: driverId, driver_name: driverId },
    });
    expect(created.status).toBe(200);
  }
});

afterAll(() => api?.close());

describe('POST /dcs/{dc_id}/invoiced-routes', () => {
  it('accepts a route with 202 and a txid, and the import succeeds', async () => {
    const { txid } = expectSuccess(await post(exampleRoute('accept-1')), routes.importRoute, 202) as {
      txid: string;
    };
    const finished = await waitForImport(api.url, acme.key, 'dc-1', txid);
    expect(expectSuccess(finished, routes.getImportStatus)).toEqual({
      txid,
      status: 'SUCCEEDED',
      route_id: 'accept-1',
    });
  });

  it('stores every invoice and item field, read back in import order by the invoice status read', async () => {
    const route = exampleRoute('fields-1', {
      waypoints: 3,
      invoicesPerWaypoint: 2,
      itemsPerInvoice: 3,
      driverId: 'driver-1',
    });
    await importRoute(api.url, acme.key, 'dc-1', route);
    const read = expectSuccess(
      await request('GET', '/dcs/dc-1/routes/fields-1/invoices', { key: acme.key }),
      routes.getInvoiceStatus,
    );
    expect(read).toEqual({ invoices: expectedInvoices(route) });
  });

  it('answers null for the optional item fields the import left out (sku, name, display_unit_of_measure)', async () => {
    const route = exampleRoute('lean-1', { waypoints: 1, leanItems: true });
    await importRoute(api.url, acme.key, 'dc-1', route);
    const read = expectSuccess(
      await request('GET', '/dcs/dc-1/routes/lean-1/invoices', { key: acme.key }),
      routes.getInvoiceStatus,
    ) as { invoices: { items: object[] }[] };
    expect(read.invoices[0]?.items[0]).toMatchObject({
      sku: null,
      name: null,
      display_unit_of_measure: null,
    });
    expect(read).toEqual({ invoices: expectedInvoices(route) });
  });

  it('imports a route with only the required fields, with the documented defaults', async () => {
    const minimal = {
      id: 'minimal-1',
      start_time: 1_790_000_000_000,
      waypoints: [{ id: 'minimal-wp', location: { latitude: 0, longitude: 0 } }],
    };
    await importRoute(api.url, acme.key, 'dc-1', minimal);
    const read = await request('GET', '/dcs/dc-1/routes/minimal-1/invoices', { key: acme.key });
    expect(expectSuccess(read, routes.getInvoiceStatus)).toEqual({ invoices: [] });
  });

  it('keeps non-ASCII text, quotes and newlines in names intact', async () => {
    const route = exampleRoute('unicode-1', { waypoints: 1, invoicesPerWaypoint: 1, itemsPerInvoice: 1 });
    const item = route.waypoints[0]?.invoices[0]?.items[0];
    if (!item) throw new Error('fixture has no item');
    item.name = 'Ćevapi "12 × 0,5 l"\nÜberkarton 🍺';
    await importRoute(api.url, acme.key, 'dc-1', route);
    const read = expectSuccess(
      await request('GET', '/dcs/dc-1/routes/unicode-1/invoices', { key: acme.key }),
      routes.getInvoiceStatus,
    ) as {
      invoices: { items: { name: string }[] }[];
    };
    expect(read.invoices[0]?.items[0]?.name).toBe(item.name);
  });

  it('rejects a route id already imported in the account, in any of its DCs, with 3005', async () => {
    await importRoute(api.url, acme.key, 'dc-1', exampleRoute('taken-1'));
    expect(expectError(await post(exampleRoute('taken-1')), 400, 3005)).toContain("'taken-1'");
    const sameIdsOtherDc = exampleRoute('taken-1');
    expectError(await post(sameIdsOtherDc, 'dc-2'), 400, 3005);
  });

  it('lets another account use the same ids', async () => {
    await importRoute(api.url, acme.key, 'dc-1', exampleRoute('shared-1'));
    await importRoute(api.url, globex.key, 'gx-1', exampleRoute('shared-1'));
  });

  it.each([
    ['waypoint', 3006, (route: ReturnType<typeof exampleRoute>) => route.waypoints[0]?.id],
    ['invoice', 3008, (route: ReturnType<typeof exampleRoute>) => route.waypoints[0]?.invoices[0]?.id],
    ['item', 3009, (route: ReturnType<typeof exampleRoute>) => route.waypoints[0]?.invoices[0]?.items[0]?.id],
  ] as const)('rejects a %s id another route already uses with %i', async (kind, code, idOf) => {
    const first = exampleRoute(`first-${kind}`);
    await importRoute(api.url, acme.key, 'dc-1', first);
    const second = exampleRoute(`second-${kind}`);
    if (kind === 'waypoint' && second.waypoints[1]) second.waypoints[1].id = idOf(first) as string;
    if (kind === 'invoice' && second.waypoints[1]?.invoices[0])
      second.waypoints[1].invoices[0].id = idOf(first) as string;
    if (kind === 'item' && second.waypoints[1]?.invoices[0]?.items[1])
      second.waypoints[1].invoices[0].items[1].id = idOf(first) as string;
    expect(expectError(await post(second), 400, code)).toContain(idOf(first) as string);
  });

  it.each([
    ['waypoint', 3006],
    ['invoice', 3008],
    ['item', 3009],
  ] as const)('rejects a %s id repeated inside the route with %i, naming where', async (kind, code) => {
    const route = exampleRoute(`repeat-${kind}`);
    const [w0, w1] = route.waypoints;
    if (!w0 || !w1) throw new Error('fixture needs two waypoints');
    if (kind === 'waypoint') w1.id = w0.id;
    if (kind === 'invoice' && w1.invoices[0] && w0.invoices[0]) w1.invoices[0].id = w0.invoices[0].id;
    if (kind === 'item' && w1.invoices[0]?.items[0] && w0.invoices[0]?.items[0])
      w1.invoices[0].items[0].id = w0.invoices[0].items[0].id;
    expect(expectError(await post(route), 400, code)).toMatch(/^route\.waypoints\.1\./);
  });

  it('rejects a driver_id that is not a driver of the DC with 3010', async () => {
    expectError(await post(exampleRoute('no-driver', { driverId: 'nobody' })), 400, 3010);
    expectError(await post(exampleRoute('other-dc-driver', { driverId: 'driver-2' })), 400, 3010);
  });

  it.each([
    ['a missing route', undefined, /^route: /],
    ['a missing id', { ...exampleRoute('x'), id: undefined }, /^route\.id: /],
    ['a missing start_time', { ...exampleRoute('x'), start_time: undefined }, /^route\.start_time: /],
    [
      'a start_time that is not an integer',
      { ...exampleRoute('x'), start_time: 1.5 },
      /^route\.start_time: /,
    ],
    ['no waypoints', { ...exampleRoute('x'), waypoints: [] }, /^route\.waypoints: /],
    [
      'a waypoint without location',
      { ...exampleRoute('x'), waypoints: [{ id: 'w' }] },
      /^route\.waypoints\.0\.location: /,
    ],
    [
      'a latitude of 91',
      { ...exampleRoute('x'), waypoints: [{ id: 'w', location: { latitude: 91, longitude: 0 } }] },
      /latitude/,
    ],
    ['a lower-case currency', withItem({ currency: 'usd' }), /currency: must be an ISO 4217 code/],
    ['a negative quantity', withItem({ quantity: -1 }), /quantity: /],
    ['a fractional total_price_cents', withItem({ total_price_cents: 10.5 }), /total_price_cents: /],
    [
      'a time window that ends before it starts',
      withWaypoint({ time_windows: [{ start: 1_795_442_400_010, end: 1_795_442_400_005 }] }),
      /time_windows\.0\.end: start must be before end/,
    ],
    ['a lower-case payment method', withInvoice({ payment_method: 'cash' }), /payment_method: /],
    ['an empty route id', { ...exampleRoute('x'), id: '' }, /^route\.id: /],
    // Dot segments: `/routes/%2E` would name the route list, so route "." could never be read or deleted.
    ['a route id "."', { ...exampleRoute('x'), id: '.' }, /^route\.id: must not be "\." or "\.\."/],
    [
      'a waypoint id ".."',
      withWaypoint({ id: '..' }),
      /^route\.waypoints\.0\.id: must not be "\." or "\.\."/,
    ],
    ['a route name of 201 characters', { ...exampleRoute('x'), name: 'n'.repeat(201) }, /^route\.name: /],
    [
      '2,001 waypoints',
      {
        ...exampleRoute('x'),
        waypoints: Array.from({ length: 2001 }, (_, i) => ({
          id: `w${i}`,
          location: { latitude: 0, longitude: 0 },
        })),
      },
      /^route\.waypoints: /,
    ],
  ])('rejects %s with 1006 naming the field', async (_, route, message) => {
    const response = await request('POST', '/dcs/dc-1/invoiced-routes', { key: acme.key, body: { route } });
    expect(expectError(response, 400, 1006)).toMatch(message);
  });

  it.each([
    ['import-status', '/dcs/{dc_id}/routes/import-status/{txid}'],
    ['find_by_date', '/dcs/{dc_id}/routes/find_by_date/{date}'],
  ])(
    'refuses the route id %s, a fixed segment where route ids go in paths, with 1006 naming it',
    async (id, path) => {
      expect(expectError(await post(exampleRoute(id)), 400, 1006)).toBe(
        `route.id: must not be '${id}', a fixed segment of the API's paths where {route_id} goes (${path}): the route could not be read; choose another id`,
      );
    },
  );

  it('imports a route whose id only contains a fixed segment, and reads it', async () => {
    // The gateway answers the fixed segment's path: a route named by it could not be read.
    expectError(
      await request('GET', '/dcs/dc-1/routes/import-status/invoices', { key: acme.key }),
      404,
      3004,
    );
    const route = exampleRoute('import-status-2', { waypoints: 1 });
    await importRoute(api.url, acme.key, 'dc-1', route);
    const read = await request('GET', '/dcs/dc-1/routes/import-status-2/invoices', { key: acme.key });
    expect(expectSuccess(read, routes.getInvoiceStatus)).toEqual({ invoices: expectedInvoices(route) });
  });

  it('rejects more than 50,000 items with 1006', async () => {
    const items = Array.from({ length: 50_001 }, (_, i) => ({
      id: `i${i}`,
      quantity: 1,
      total_price_cents: 1,
      currency: 'USD',
    }));
    const route = {
      id: 'too-many',
      start_time: 1_790_000_000_000,
      waypoints: [{ id: 'w', location: { latitude: 0, longitude: 0 }, invoices: [{ id: 'inv', items }] }],
    };
    expect(expectError(await post(route), 400, 1006)).toMatch(/at most 50000 items/);
  });

  it('rejects malformed JSON with 1005 and a body over 5 MB with 413 and 1004', async () => {
    expectError(
      await request('POST', '/dcs/dc-1/invoiced-routes', { key: acme.key, body: '{"route": {' }),
      400,
      1005,
    );
    const huge = exampleRoute('huge', { waypoints: 1 });
    const body = JSON.stringify({ route: huge, padding: 'x'.repeat(5.5 * 1024 * 1024) });
    expectError(await request('POST', '/dcs/dc-1/invoiced-routes', { key: acme.key, body }), 413, 1004);
  });

  it('answers 403 for a DC of another account and 401 without a key', async () => {
    expectError(await post(exampleRoute('forbidden'), 'gx-1'), 403, 1002);
    expectError(
      await request('POST', '/dcs/dc-1/invoiced-routes', { body: { route: exampleRoute('anon') } }),
      401,
      1001,
    );
  });
});

describe('GET /dcs/{dc_id}/routes/import-status/{txid}', () => {
  it('answers 404 with 3004 for an unknown txid and for a txid of another DC', async () => {
    expectError(
      await request('GET', '/dcs/dc-1/routes/import-status/imp_unknown', { key: acme.key }),
      404,
      3004,
    );
    const { txid } = expectSuccess(await post(exampleRoute('status-dc')), routes.importRoute, 202) as {
      txid: string;
    };
    expectError(await request('GET', `/dcs/dc-2/routes/import-status/${txid}`, { key: acme.key }), 404, 3004);
  });

  it('answers 403 for another account’s DC and 401 without a key', async () => {
    expectError(await request('GET', '/dcs/gx-1/routes/import-status/imp_x', { key: acme.key }), 403, 1002);
    expectError(await request('GET', '/dcs/dc-1/routes/import-status/imp_x'), 401, 1001);
  });

  it('does not show another account’s import', async () => {
    const { txid } = expectSuccess(
      await post(exampleRoute('private-1'), 'gx-1', globex.key),
      routes.importRoute,
      202,
    ) as { txid: string };
    expectError(await request('GET', `/dcs/dc-1/routes/import-status/${txid}`, { key: acme.key }), 404, 3004);
  });
});

describe('GET /dcs/{dc_id}/routes/{route_id}/invoices and .../accounting', () => {
  it.each(['invoices', 'accounting'])(
    '%s answers 400 with 3003 for an unknown route and for a route of another DC',
    async (read) => {
      expectError(await request('GET', `/dcs/dc-1/routes/nowhere/${read}`, { key: acme.key }), 400, 3003);
      await importRoute(api.url, acme.key, 'dc-2', exampleRoute(`dc2-${read}`));
      expectError(await request('GET', `/dcs/dc-1/routes/dc2-${read}/${read}`, { key: acme.key }), 400, 3003);
    },
  );

  it.each(['invoices', 'accounting'])(
    '%s answers 403 for another account’s DC and 401 without a key',
    async (read) => {
      expectError(await request('GET', `/dcs/gx-1/routes/shared-1/${read}`, { key: acme.key }), 403, 1002);
      expectError(await request('GET', `/dcs/dc-1/routes/shared-1/${read}`), 401, 1001);
    },
  );

  it('accounting has no records until the driver reports some', async () => {
    await importRoute(api.url, acme.key, 'dc-1', exampleRoute('cash-1'));
    const read = await request('GET', '/dcs/dc-1/routes/cash-1/accounting', { key: acme.key });
    expect(expectSuccess(read, routes.getRouteAccounting)).toEqual({ records: [] });
  });
});

function withWaypoint(fields: Record<string, unknown>) {
  const route = exampleRoute('x');
  Object.assign(route.waypoints[0] as object, fields);
  return route;
}

function withInvoice(fields: Record<string, unknown>) {
  const route = exampleRoute('x');
  Object.assign(route.waypoints[0]?.invoices[0] as object, fields);
  return route;
}

function withItem(fields: Record<string, unknown>) {
  const route = exampleRoute('x');
  Object.assign(route.waypoints[0]?.invoices[0]?.items[0] as object, fields);
  return route;
}
