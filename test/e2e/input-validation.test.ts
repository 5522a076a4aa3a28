import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { MAX_ID_BYTES } from '../../functions/models/common';
import { IMPORT_LIMITS, MAX_LISTED_ID_BYTES } from '../../functions/models/import-model';
import { MAX_ISSUES_MESSAGE_CHARS } from '../../functions/shared/request-parsing';
import { createTestAccount } from '../support/accounts';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { exampleRoute, importRoute, uploadAndImport } from '../support/routes';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/*
 * What clients may send, end to end through the local API Gateway and the handlers: ids as ERP systems write
 * them (spaces, `%`, `?`, `#`, `+`, any script, emoji) percent-encoded in paths, text AWS cannot carry refused
 * at the edge with 1006 naming the field, numbers DynamoDB cannot store and times far off refused at the
 * request (never a 500, never an import accepted to fail later with 1000), and messages that stay small
 * whatever was sent.
 */

// The pipe runs: one test follows an event from the driver app to a webhook.
const fx = useTestApi('input-validation', { streams: true }, 120_000);
let acme: TestAccount;
let receiver: WebhookReceiver;

/** A DC id of 128 characters and 384 bytes, the most an id may have. */
const LONG_DC = '東'.repeat(128);
const NOW = () => Date.now() - 60_000;

const asAcme = (method: string, path: string, body?: unknown) => fx.as(acme.key, method, path, body);
const asDriver = (token: string, method: string, path: string, body?: unknown) =>
  fx.as(token, method, path, body);
const enc = encodeURIComponent;

beforeAll(async () => {
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: LONG_DC }]);
  receiver = await startWebhookReceiver();
  const webhook = await asAcme('POST', '/webhooks', {
    webhook_url: receiver.url,
    events: ['WAYPOINT_STATUS_CHANGED'],
    dc_ids: ['dc-1'],
  });
  expect(webhook.status, webhook.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
});

async function createDriver(dcId: string, driverId: string, loginToken: string) {
  const response = await asAcme('POST', `/dcs/${enc(dcId)}/drivers`, {
    driver_id: driverId,
    driver_name: `Driver ${driverId}`,
    login_token: loginToken,
  });
  return expectSuccess(response, drivers.createDriver) as { driver: { id: string } };
}

/** A route of the driver, imported, active and started by the driver app. */
async function startedRoute(routeId: string, driverId: string, token: string, route = {}) {
  await importRoute(fx.api.url, acme.key, 'dc-1', { ...exampleRoute(routeId, { driverId }), ...route });
  const started = await asDriver(token, 'POST', `/driver/routes/${enc(routeId)}/start`, { timestamp: NOW() });
  expectSuccess(started, driverApp.startDriverRoute);
}

const postImport = (route: unknown) => asAcme('POST', '/dcs/dc-1/invoiced-routes', { route });

describe('ids as clients send them, percent-encoded in the path', () => {
  // Ids of the routes' waypoints, invoices and items add a few characters to the route id: 90 emoji leave room.
  const IDS = ['R 2026-11-23', 'R%20', 'R?x=1', 'R#1', 'R+1', 'Zoë Ødegård 東京', 'مسار-٣', '😀'.repeat(90)];

  it.each(IDS)('imports, reads and changes the route %j through its path', async (routeId) => {
    const route = exampleRoute(routeId);
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    const path = `/dcs/dc-1/routes/${enc(routeId)}`;
    const read = expectSuccess(await asAcme('GET', path), routes.getRoute) as { route: { id: string } };
    expect(read.route.id).toBe(routeId);
    const waypointId = route.waypoints[0]?.id as string;
    const waypoint = expectSuccess(
      await asAcme('GET', `${path}/waypoints/${enc(waypointId)}`),
      routes.getWaypoint,
    );
    expect((waypoint as { waypoint: { id: string } }).waypoint.id).toBe(waypointId);
    const invoices = expectSuccess(await asAcme('GET', `${path}/invoices`), routes.getInvoiceStatus) as {
      invoices: { id: string }[];
    };
    expect(invoices.invoices[0]?.id).toBe(route.waypoints[0]?.invoices[0]?.id);
    expectSuccess(await asAcme('PATCH', `${path}/deactivate`), routes.deactivateRoute);
    expectSuccess(await asAcme('DELETE', path), routes.deleteRoute);
  });

  it.each(IDS)('creates, reads and renames the driver %j through its path', async (driverId) => {
    const created = await createDriver(
      'dc-1',
      driverId,
      strongToken(`login-token-${Buffer.from(driverId).toString('hex').slice(0, 40)}`),
    );
    expect(created.driver.id).toBe(driverId);
    const path = `/dcs/dc-1/drivers/${enc(driverId)}`;
    expect((expectSuccess(await asAcme('GET', path), drivers.getDriver) as typeof created).driver.id).toBe(
      driverId,
    );
    expectSuccess(await asAcme('PATCH', path, { driver_name: 'Renamed' }), drivers.updateDriver);
    expectSuccess(await asAcme('GET', `${path}/driver_bulk_info`), drivers.getDriverBulkInfo);
  });

  it('keeps the longest ids within every key: a driver of 384 bytes in a DC of 384 bytes signs in', async () => {
    const driverId = '😀'.repeat(MAX_ID_BYTES / 4);
    await createDriver(LONG_DC, driverId, strongToken('longest-key-token-0001'));
    const read = await asAcme('GET', `/dcs/${enc(LONG_DC)}/drivers/${enc(driverId)}/driver_bulk_info`);
    expect((expectSuccess(read, drivers.getDriverBulkInfo) as { driver: { id: string } }).driver.id).toBe(
      driverId,
    );
    // Keys that hold both ids (account, DC and driver: 790 of the 1,024 bytes a sort key may have) fit.
    expectSuccess(
      await asDriver(strongToken('longest-key-token-0001'), 'GET', '/driver/routes'),
      driverApp.listDriverRoutes,
    );
  });

  it('refuses "/", a space at either end and 128 emoji (512 bytes) with 1006 naming the field', async () => {
    const cases: [string, string][] = [
      ['a/b', 'driver_id: must not contain "/"'],
      [' d-1', 'driver_id: must not start or end with whitespace'],
      ['d-1 ', 'driver_id: must not start or end with whitespace'],
      ['😀'.repeat(128), `driver_id: must be at most ${MAX_ID_BYTES} bytes in UTF-8`],
    ];
    for (const [driverId, expected] of cases) {
      const response = await asAcme('POST', '/dcs/dc-1/drivers', { driver_id: driverId, driver_name: 'x' });
      expect(expectError(response, 400, 1006)).toContain(expected);
    }
    expect(expectError(await asAcme('GET', `/dcs/dc-1/routes/${enc('a/b')}`), 400, 1006)).toContain(
      'path.route_id: must not contain "/"',
    );
  });

  it('takes a cash container label with spaces (bag A)', async () => {
    await createDriver('dc-1', 'cash-driver', strongToken('cash-driver-token-0001'));
    await startedRoute('cash-route', 'cash-driver', strongToken('cash-driver-token-0001'));
    const response = await asDriver(
      strongToken('cash-driver-token-0001'),
      'POST',
      '/driver/routes/cash-route/accounting',
      {
        id: 'cash 1',
        cash_received_cents: 500,
        cash_container_id: 'bag A',
      },
    );
    const { record } = expectSuccess(response, driverApp.addDriverAccountingRecord) as {
      record: { id: string; cash_container_id: string };
    };
    expect(record).toMatchObject({ id: 'cash 1', cash_container_id: 'bag A' });
  });
});

describe('text AWS cannot carry is refused at the edge; every other character is carried intact', () => {
  it('refuses an attempt id holding U+FFFF with 1006 (its event could not be sent to SQS)', async () => {
    await createDriver('dc-1', 'text-driver', strongToken('text-driver-token-001'));
    await startedRoute('text-route', 'text-driver', strongToken('text-driver-token-001'));
    const path = '/driver/routes/text-route/waypoints/text-route-wp-0/attempts';
    for (const [id, expected] of [
      ['a\uFFFF', 'id: must not contain U+FFFF (a Unicode noncharacter) at character 2'],
      ['a\uD800', 'id: must not contain U+D800 (a lone surrogate) at character 2'],
      ['a\u0000', 'id: must not contain U+0000 (a control character) at character 2'],
    ]) {
      const response = await asDriver(strongToken('text-driver-token-001'), 'POST', path, {
        id,
        timestamp: NOW(),
        status: 'VISIT_LATER',
      });
      expect(expectError(response, 400, 1006)).toBe(expected);
    }
  });

  it('delivers an emoji attempt id to the webhook as it was sent', async () => {
    const id = '🚚📦✅ visit 1 — Zoë';
    const path = '/driver/routes/text-route/waypoints/text-route-wp-1/attempts';
    const response = await asDriver(strongToken('text-driver-token-001'), 'POST', path, {
      id,
      timestamp: NOW(),
      status: 'VISIT_LATER',
    });
    expect(
      (expectSuccess(response, driverApp.recordDriverAttempt) as { attempt: { id: string } }).attempt.id,
    ).toBe(id);
    const [delivery] = await receiver.waitFor((d) => d.json.attempt_id === id, 1, 60_000);
    expect(delivery?.json).toMatchObject({
      event: 'WAYPOINT_STATUS_CHANGED',
      attempt_id: id,
      route_id: 'text-route',
    });
  });

  it('refuses such text in imported names, driver names and path parameters', async () => {
    const route = exampleRoute('bad-text');
    const withName = { ...route, waypoints: [{ ...route.waypoints[0], name: 'Corner \uDBFF store' }] };
    expect(expectError(await postImport(withName), 400, 1006)).toBe(
      'route.waypoints.0.name: must not contain U+DBFF (a lone surrogate) at character 8',
    );
    const driver = await asAcme('POST', '/dcs/dc-1/drivers', { driver_id: 'd-x', driver_name: 'Zoë\uFFFE' });
    expect(expectError(driver, 400, 1006)).toContain('driver_name: must not contain U+FFFE');
    expect(expectError(await asAcme('GET', `/dcs/dc-1/routes/${enc('r\uFDD0')}`), 400, 1006)).toContain(
      'path.route_id: must not contain U+FDD0',
    );
  });

  it('keeps line breaks in free text (addresses), not in single-line text (route names)', async () => {
    const route = exampleRoute('lines');
    await importRoute(fx.api.url, acme.key, 'dc-1', {
      ...route,
      waypoints: [{ ...route.waypoints[0], address: '5 Main St\nBack door\tbell 2' }],
    });
    const read = await asAcme('GET', '/dcs/dc-1/routes/lines/waypoints/lines-wp-0');
    expect(
      (expectSuccess(read, routes.getWaypoint) as { waypoint: { address: string } }).waypoint.address,
    ).toBe('5 Main St\nBack door\tbell 2');
    expect(
      expectError(await postImport({ ...exampleRoute('lines-2'), name: 'North\nloop' }), 400, 1006),
    ).toBe('route.name: must not contain U+000A (a control character) at character 6');
  });
});

describe('numbers DynamoDB cannot store and times far off are refused at the request', () => {
  const route = exampleRoute('numbers');
  const waypoint = route.waypoints[0] as (typeof route.waypoints)[number];
  const item = waypoint.invoices[0]?.items[0] as (typeof waypoint.invoices)[number]['items'][number];
  const withWaypoint = (change: object) => ({ ...route, waypoints: [{ ...waypoint, ...change }] });
  const withItem = (change: object) =>
    withWaypoint({ invoices: [{ ...waypoint.invoices[0], items: [{ ...item, ...change }] }] });

  it.each([
    [
      'a latitude of 1e-200',
      withWaypoint({ location: { latitude: 1e-200, longitude: 0 } }),
      'route.waypoints.0.location.latitude',
    ],
    ['a quantity of 1e-131', withItem({ quantity: 1e-131 }), 'route.waypoints.0.invoices.0.items.0.quantity'],
    ['a start time in seconds', { ...route, start_time: 1_795_438_800 }, 'route.start_time'],
    ['a start time past Date', { ...route, start_time: 9e15 }, 'route.start_time'],
    ['a start time in 2100', { ...route, start_time: Date.UTC(2100, 0, 1) + 1 }, 'route.start_time'],
    [
      'a time window in 1970',
      withWaypoint({ time_windows: [{ start: 0, end: 1000 }] }),
      'route.waypoints.0.time_windows.0.start',
    ],
  ])('an import with %s: 1006 at the POST', async (_, body, field) => {
    expect(expectError(await postImport(body), 400, 1006)).toContain(`${field}: `);
  });

  it('a location ping and an attempt with a latitude of 1e-200: 1006', async () => {
    await createDriver('dc-1', 'ping-driver', strongToken('ping-driver-token-01'));
    const ping = await asDriver(strongToken('ping-driver-token-01'), 'POST', '/driver/location', {
      timestamp: NOW(),
      location: { latitude: 1e-200, longitude: 1 },
    });
    expect(expectError(ping, 400, 1006)).toContain(
      'location.latitude: must be 0 or have a magnitude between 1e-130',
    );
    const attempt = await asDriver(
      strongToken('text-driver-token-001'),
      'POST',
      '/driver/routes/text-route/waypoints/text-route-wp-0/attempts',
      { id: 'tiny', timestamp: NOW(), status: 'VISIT_LATER', location: { latitude: 0, longitude: -5e-324 } },
    );
    expect(expectError(attempt, 400, 1006)).toContain('location.longitude: ');
  });
});

describe('an import is checked at the POST for what would fail it later', () => {
  /** An id of `bytes` UTF-8 bytes in at most 128 characters: `unique`, then emoji, then ASCII. */
  const idWithBytes = (unique: string, bytes: number) => {
    const rest = bytes - unique.length;
    return `${unique}${'😀'.repeat(Math.floor(rest / 4))}${'x'.repeat(rest % 4)}`;
  };
  const at = { latitude: 41.9, longitude: -87.6 };
  /** A route of `count` waypoints whose ids have `bytes` UTF-8 bytes each. */
  const routeWithIds = (routeId: string, count: number, bytes: number) => ({
    id: routeId,
    start_time: Date.UTC(2026, 10, 23, 13),
    waypoints: Array.from({ length: count }, (_, w) => ({
      id: idWithBytes(`${routeId}-${w}-`, bytes),
      location: at,
    })),
  });

  it('imports a route whose waypoint ids have the most bytes a route may list', async () => {
    // 256 ids of 384 bytes: the header lists them all, and ROUTE_ETAS_CHANGED would too.
    const route = routeWithIds('ids-at-limit', MAX_LISTED_ID_BYTES / MAX_ID_BYTES, MAX_ID_BYTES);
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    // An import through the queue and the worker: 10-30 s beside another busy file.
  }, 90_000);

  it('refuses more with 1006, naming the waypoints', async () => {
    const route = routeWithIds('ids-over', MAX_LISTED_ID_BYTES / MAX_ID_BYTES + 1, MAX_ID_BYTES - 1);
    const message = expectError(await postImport(route), 400, 1006);
    expect(message).toBe(
      `route.waypoints: the waypoint ids of a route may have at most ${MAX_LISTED_ID_BYTES} bytes together (UTF-8, as JSON writes them); these have ${257 * 383}`,
    );
  });

  it('refuses more invoices than a route may hold, and a waypoint whose invoice ids are too long', async () => {
    const invoices = Array.from({ length: IMPORT_LIMITS.invoices + 1 }, (_, i) => ({
      id: `i${i}`,
      items: [],
    }));
    const many = {
      id: 'many-invoices',
      start_time: Date.UTC(2026, 10, 23),
      waypoints: [{ id: 'mi-0', location: at, invoices }],
    };
    const message = expectError(await postImport(many), 400, 1006);
    expect(message).toContain('route.waypoints: a route holds at most 50000 invoices; this one has 50001');
    expect(message).toContain(
      'route.waypoints.0.invoices: the invoice ids of a waypoint may have at most 98304 bytes',
    );
  });
});

describe('an attempt is refused, not failed, when it would not fit in one item', () => {
  it('refuses 500 items with long ids and reasons (1006); takes them with short reasons', async () => {
    const itemIds = Array.from({ length: 500 }, (_, i) => `${i}-`.padEnd(128, 'i'));
    const route = exampleRoute('big-attempt', { driverId: 'big-driver', waypoints: 1, itemsPerInvoice: 1 });
    const invoice = route.waypoints[0]?.invoices[0] as (typeof route.waypoints)[number]['invoices'][number];
    const items = itemIds.map((id) => ({ ...invoice.items[0], id })) as typeof invoice.items;
    await createDriver('dc-1', 'big-driver', strongToken('big-driver-token-0001'));
    await startedRoute('big-attempt', 'big-driver', strongToken('big-driver-token-0001'), {
      waypoints: [{ ...route.waypoints[0], invoices: [{ ...invoice, items }] }],
    });
    const attempt = (message: string) => ({
      id: `attempt-${message.length}`,
      timestamp: NOW(),
      status: 'FAILED',
      reason: { code: 'CLOSED', message: 'closed' },
      items: itemIds.map((id) => ({ id, status: 'FAILED', reason: { code: 'D'.repeat(64), message } })),
    });
    const path = '/driver/routes/big-attempt/waypoints/big-attempt-wp-0/attempts';
    // 500 x (128 + 64 + 1,000) bytes: 596 KB, more than the 400 KB item DynamoDB stores (a 500 before).
    const tooBig = await asDriver(
      strongToken('big-driver-token-0001'),
      'POST',
      path,
      attempt('é'.repeat(500)),
    );
    expect(expectError(tooBig, 400, 1006)).toMatch(
      /^items: the listed items' ids and reasons and the scans may have at most 262144 bytes/,
    );
    const fits = await asDriver(strongToken('big-driver-token-0001'), 'POST', path, attempt('é'.repeat(150)));
    expect(
      (expectSuccess(fits, driverApp.recordDriverAttempt) as { attempt: { items: unknown[] } }).attempt.items,
    ).toHaveLength(500);
    // An import and two attempts of 500 items: 10-30 s beside another busy file.
  }, 90_000);
});

describe('messages stay small whatever was sent', () => {
  it('an unknown event type of a megabyte: 1006 naming the field, without the value', async () => {
    const response = await asAcme('POST', '/webhooks', {
      webhook_url: 'https://example.com/hooks',
      events: ['E'.repeat(1_000_000)],
      dc_ids: ['dc-1'],
    });
    expect(expectError(response, 400, 1006)).toBe(
      'events.0: must be 0..64 characters long; this one has 1000000',
    );
    const unknown = await asAcme('POST', '/webhooks', {
      webhook_url: 'https://example.com/hooks',
      events: Array.from({ length: 20 }, (_, i) => `${i}${'E'.repeat(62)}`),
      dc_ids: ['dc-1'],
    });
    expect(expectError(unknown, 400, 4002).length).toBeLessThan(600);
  });

  it('an import with 5,000 bad items: ten named, the rest counted', async () => {
    const route = exampleRoute('many-bad', { waypoints: 50, invoicesPerWaypoint: 1, itemsPerInvoice: 100 });
    for (const waypoint of route.waypoints)
      for (const item of waypoint.invoices[0]?.items ?? []) (item as { quantity: unknown }).quantity = 'x';
    const message = expectError(await postImport(route), 400, 1006);
    expect(message).toMatch(/; and 4990 more$/);
    expect(message.length).toBeLessThanOrEqual(MAX_ISSUES_MESSAGE_CHARS);
  });

  it('an uploaded route with 50,000 bad items fails with the same small message', async () => {
    const route = exampleRoute('upload-bad', { waypoints: 500, itemsPerInvoice: 100, leanItems: true });
    for (const waypoint of route.waypoints)
      for (const item of waypoint.invoices[0]?.items ?? [])
        (item as { currency: string }).currency = '\uFFFF'.repeat(100);
    const finished = await uploadAndImport(fx.api.url, acme.key, 'dc-1', JSON.stringify({ route }), 120_000);
    const message = expectError(finished, 400, 1006);
    // As many problems as fit 1,000 characters are named (nine of these), the rest counted.
    expect(message).toMatch(
      /^import imp_\w+ failed: route\.waypoints\.0\.invoices\.0\.items\.0\.currency: .*; and 4999\d more$/,
    );
    expect(message.length).toBeLessThanOrEqual(MAX_ISSUES_MESSAGE_CHARS + 100);
  }, 150_000);
});

describe('path parameters have a length limit', () => {
  it('a download txid of 2,100 characters: 1006 (it was a 500); one of 256 that was never issued: 6000', async () => {
    const files = (txid: string) => asAcme('GET', `/analytics/download-requests/${enc(txid)}/files`);
    expect(expectError(await files('x'.repeat(2100)), 400, 1006)).toBe(
      'path.download_request_txid: must be 1..256 characters long; this one has 2100',
    );
    expectError(await files('x'.repeat(256)), 400, 6000);
  });

  it.each([
    '/dcs/dc-1/routes/{}',
    '/dcs/{}/drivers',
    '/dcs/dc-1/drivers/{}',
    '/dcs/dc-1/routes/import-status/{}',
    '/webhooks/{}/deliveries',
  ])('GET %s with a parameter of 2,100 characters: 1006', async (template) => {
    expectError(await asAcme('GET', template.replace('{}', 'x'.repeat(2100))), 400, 1006);
  });
});
