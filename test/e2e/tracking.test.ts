import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { getTrackingPage, TrackedStop } from '../../functions/api/tracking/index';
import { createTestAccount } from '../support/accounts';
import { launchChromium, saveScreenshot } from '../support/browser';
import type { Waypoint } from '../support/driver-app';
import { type CallOptions, call, callRaw, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, importRoute } from '../support/routes';
import { expectThrottledAnswers, hammerUntilThrottled } from '../support/throttling';

/**
 * GET /track/{token}: a waypoint's tracking page for its customer, as JSON and as HTML, over HTTP and in
 * headless Chromium at a phone's width.
 */

const HOUR = 3_600_000;
const MINUTE = 60_000;
const DAY = 24 * HOUR;
/** When the file's routes are timed from, on a whole second. */
const NOW = Math.floor(Date.now() / 1000) * 1000;

/** Customer data is text, never markup: the DC's name, a stop's name and address carry markup to prove it. */
const DC_NAME = 'Acme <script>alert("dc")</script> Foods';
const STOP_NAME = '<script>alert("stop")</script> Deli & "Co"';
const STOP_ADDRESS = "12 Main St\nSuite <b>4</b>, O'Hare";
/** The driver's full name: the page shows the first word only. */
const DRIVER_NAME = 'Ana María Ruiz';
/** Where the driver reports being: never shown. */
const DRIVER_AT = { latitude: 41.912345, longitude: -87.654321 };

let api: TestApi;
let acme: { accountId: string; key: string };
const tokens: Record<string, string> = {};

const asAcme = (method: string, path: string, body?: unknown) =>
  call(api.url, method, path, { key: acme.key, body });
const asDriver = (driverId: string, method: string, path: string, body?: unknown) =>
  call(api.url, method, path, { key: tokens[driverId], body });

/** A route of four stops, the third with markup in its name and address, the first three of a driver's. */
function trackedRoute(id: string, startTime: number, driverId?: string) {
  const route = exampleRoute(id, { waypoints: 4, startTime, driverId });
  const third = route.waypoints[2];
  if (!third) throw new Error('the route has no third stop');
  third.name = STOP_NAME;
  third.address = STOP_ADDRESS;
  return route;
}

async function createDriver(driverId: string) {
  const created = await asAcme('POST', '/dcs/dc-1/drivers', {
    driver_id: driverId,
    driver_name: DRIVER_NAME,
  });
  tokens[driverId] = (
    expectSuccess(created, drivers.createDriver) as { driver: { login_token: string } }
  ).driver.login_token;
}

async function waypointsOf(routeId: string): Promise<Waypoint[]> {
  const response = await asAcme('GET', `/dcs/dc-1/routes/${routeId}/waypoints`);
  return (expectSuccess(response, routes.listWaypoints) as { waypoints: Waypoint[] }).waypoints;
}

/** The path of a waypoint's tracking page, from its `tracking_url` (under this API's URL). */
async function trackingPath(routeId: string, sequence: number): Promise<string> {
  const url = (await waypointsOf(routeId))[sequence]?.tracking_url;
  if (!url) throw new Error(`waypoint ${sequence} of ${routeId} has no tracking link`);
  expect(url.startsWith(`${api.url}/track/`)).toBe(true);
  return url.slice(api.url.length);
}

const attempt = (driverId: string, routeId: string, sequence: number, timestamp: number) =>
  asDriver(driverId, 'POST', `/driver/routes/${routeId}/waypoints/${routeId}-wp-${sequence}/attempts`, {
    id: `${routeId}-visit-${sequence}`,
    timestamp,
    status: 'SUCCESSFUL',
    location: DRIVER_AT,
  });

/** The JSON answer (no key: the page is public). */
const trackJson = (path: string, options: CallOptions = {}) => call(api.url, 'GET', path, options);

/** The page as a browser asks for it. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const trackHtml = (path: string) => callRaw(api.url, 'GET', path, { headers: { Accept: BROWSER_ACCEPT } });

beforeAll(async () => {
  api = await startTestApi('tracking');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1', name: DC_NAME }]);
  for (const driverId of ['d-1', 'd-2', 'd-3']) await createDriver(driverId);
  // Planned for two hours from now; another running since an hour ago, started half an hour ago.
  await importRoute(api.url, acme.key, 'dc-1', trackedRoute('planned', NOW + 2 * HOUR, 'd-1'));
  await importRoute(api.url, acme.key, 'dc-1', trackedRoute('running', NOW - HOUR, 'd-2'));
  expect(
    (await asDriver('d-2', 'POST', '/driver/routes/running/start', { timestamp: NOW - 30 * MINUTE })).status,
  ).toBe(200);
  expect(
    (await asDriver('d-2', 'POST', '/driver/location', { timestamp: NOW - 20 * MINUTE, location: DRIVER_AT }))
      .status,
  ).toBe(200);
  expect((await attempt('d-2', 'running', 0, NOW - 10 * MINUTE)).status).toBe(200);
}, 120_000);

afterAll(() => api?.close());

describe('GET /track/{token} as JSON', () => {
  it('answers JSON when the client does not ask for HTML: the stop’s own facts, planned', async () => {
    const path = await trackingPath('planned', 2);
    const [waypoint] = (await waypointsOf('planned')).slice(2);
    const eta = waypoint?.eta as number;
    const expected = {
      status: 'PENDING',
      route_status: 'PLANNED',
      eta,
      eta_window: {
        start: Math.floor((eta - 15 * MINUTE) / (5 * MINUTE)) * 5 * MINUTE,
        end: Math.ceil((eta + 15 * MINUTE) / (5 * MINUTE)) * 5 * MINUTE,
      },
      stops_before: 2,
      driver_close: false,
      completed_at: null,
      dc_name: DC_NAME,
      stop_name: STOP_NAME,
      address: STOP_ADDRESS,
      driver_first_name: 'Ana',
      // The stop requires no PIN (docs/api.md, Delivery rules).
      pin: null,
      time_zone: 'America/Chicago',
      expires_at: null,
    };
    for (const headers of [{}, { Accept: '*/*' }, { Accept: 'application/json' }] as Record<
      string,
      string
    >[]) {
      const response = await trackJson(path, { headers });
      expect(expectSuccess(response, getTrackingPage), JSON.stringify(headers)).toEqual(expected);
    }
    const raw = await callRaw(api.url, 'GET', path);
    expect(raw.headers.get('content-type')).toBe('application/json');
    expect(raw.headers.get('cache-control')).toBe('no-store');
    expect(raw.headers.get('vary')).toBe('Accept');
  });

  it('shows nothing of another stop or customer, neither the driver’s last name nor where the driver is', async () => {
    const path = await trackingPath('running', 2);
    const json = expectSuccess(await trackJson(path), getTrackingPage) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(Object.keys(TrackedStop.shape).sort());
    // The first stop is done: one is left before this one.
    expect(json).toMatchObject({ status: 'PENDING', route_status: 'STARTED', stops_before: 1 });
    expect(json.eta).toEqual(expect.any(Number));
    const html = (await trackHtml(path)).text;
    const others = exampleRoute('running', { waypoints: 4 }).waypoints.filter(
      (_, sequence) => sequence !== 2,
    );
    for (const answer of [JSON.stringify(json), html]) {
      for (const other of others)
        for (const value of [other.id, other.name, other.address, other.customer_id])
          expect(answer).not.toContain(value);
      expect(answer).not.toContain('running-wp-2');
      expect(answer).not.toContain('customer-2');
      expect(answer).not.toContain('Ruiz');
      expect(answer).not.toContain('María');
      expect(answer).not.toContain(String(DRIVER_AT.latitude));
      expect(answer).not.toContain(String(DRIVER_AT.longitude).slice(1));
    }
  });

  it('says a delivered stop was delivered and when, with no ETA, and when its link expires', async () => {
    const deliveredAt = NOW - 5 * MINUTE;
    expect((await attempt('d-2', 'running', 1, deliveredAt)).status).toBe(200);
    const json = expectSuccess(await trackJson(await trackingPath('running', 1)), getTrackingPage);
    expect(json).toMatchObject({
      status: 'SUCCESSFUL',
      route_status: 'STARTED',
      eta: null,
      eta_window: null,
      stops_before: null,
      completed_at: deliveredAt,
      expires_at: deliveredAt + DAY,
    });
    const html = (await trackHtml(await trackingPath('running', 1))).text;
    expect(html).toContain('<h1>Delivered</h1>');
    expect(html).not.toContain('http-equiv="refresh"');
    // The stop after it is next now.
    expect(expectSuccess(await trackJson(await trackingPath('running', 2)), getTrackingPage)).toMatchObject({
      stops_before: 0,
    });
  });
});

describe('GET /track/{token} as a page', () => {
  it('answers HTML to a browser, every text escaped, from its own origin only, refreshing itself', async () => {
    const response = await trackHtml(await trackingPath('planned', 2));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src data:;/);
    expect(policy).not.toContain('unsafe');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = response.text;
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<b>');
    expect(html).toContain('Acme &lt;script&gt;alert(&quot;dc&quot;)&lt;/script&gt; Foods');
    expect(html).toContain('&lt;script&gt;alert(&quot;stop&quot;)&lt;/script&gt; Deli &amp; &quot;Co&quot;');
    expect(html).toContain('12 Main St\nSuite &lt;b&gt;4&lt;/b&gt;, O&#39;Hare');
    expect(html).toContain('<h1>Scheduled</h1>');
    expect(html).toContain('<dd>Ana</dd>');
    expect(html).toContain('<meta http-equiv="refresh" content="30">');
    // Nothing is loaded from anywhere: no URL in the page but its empty data: icon.
    expect([...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1])).toEqual(['data:,']);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('answers 404 with 7000 for a token no waypoint has, a malformed one, and one of a deleted route', async () => {
    await importRoute(api.url, acme.key, 'dc-1', trackedRoute('doomed', NOW + 3 * HOUR));
    const doomed = await trackingPath('doomed', 0);
    expectSuccess(await trackJson(doomed), getTrackingPage);
    expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/doomed'), routes.deleteRoute);
    const unknown = `/track/${randomBytes(16).toString('base64url')}`;
    for (const path of [
      unknown,
      '/track/not-a-token',
      `/track/${'A'.repeat(300)}`,
      '/track/%2F%2E%2E',
      doomed,
    ]) {
      expect(expectError(await trackJson(path), 404, 7000), path).toContain('path.token');
      const page = await trackHtml(path);
      expect(page.status, path).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<h1>Link not found</h1>');
    }
  });

  it('expires 24 hours after the stop was done: 410 with 7001, and a page that says so', async () => {
    await importRoute(api.url, acme.key, 'dc-1', trackedRoute('yesterday', NOW - 30 * HOUR, 'd-3'));
    expect(
      (await asDriver('d-3', 'POST', '/driver/routes/yesterday/start', { timestamp: NOW - 30 * HOUR }))
        .status,
    ).toBe(200);
    expect((await attempt('d-3', 'yesterday', 0, NOW - DAY - MINUTE)).status).toBe(200);
    expect((await attempt('d-3', 'yesterday', 1, NOW - DAY + 10 * MINUTE)).status).toBe(200);
    const expired = await trackingPath('yesterday', 0);
    expect(expectError(await trackJson(expired), 410, 7001)).toContain(
      new Date(NOW - MINUTE).toISOString().slice(0, 10),
    );
    const page = await trackHtml(expired);
    expect(page.status).toBe(410);
    expect(page.text).toContain('<h1>Link expired</h1>');
    expect(page.text).not.toContain('Foods');
    // Done less than a day ago: still shown. A stop not done on a route not finished has no end yet.
    expect(expectSuccess(await trackJson(await trackingPath('yesterday', 1)), getTrackingPage)).toMatchObject(
      {
        status: 'SUCCESSFUL',
        expires_at: NOW - DAY + 10 * MINUTE + DAY,
      },
    );
    expect(expectSuccess(await trackJson(await trackingPath('yesterday', 3)), getTrackingPage)).toMatchObject(
      {
        status: 'PENDING',
        expires_at: null,
      },
    );
  });

  it('expires 24 hours after the route finished, for every stop, visited or not', async () => {
    expect(
      (
        await asDriver('d-3', 'POST', '/driver/routes/yesterday/finish', {
          timestamp: NOW - DAY - 2 * MINUTE,
        })
      ).status,
    ).toBe(200);
    for (const sequence of [1, 3])
      expectError(await trackJson(await trackingPath('yesterday', sequence)), 410, 7001);
  });

  it('tells a stop of a route finished without it that it was not delivered, until a day after the finish', async () => {
    await importRoute(api.url, acme.key, 'dc-1', trackedRoute('ended', NOW - 3 * HOUR, 'd-3'));
    expect(
      (await asDriver('d-3', 'POST', '/driver/routes/ended/start', { timestamp: NOW - 3 * HOUR })).status,
    ).toBe(200);
    expect(
      (await asDriver('d-3', 'POST', '/driver/routes/ended/finish', { timestamp: NOW - HOUR })).status,
    ).toBe(200);
    const path = await trackingPath('ended', 2);
    expect(expectSuccess(await trackJson(path), getTrackingPage)).toMatchObject({
      status: 'PENDING',
      route_status: 'FINISHED',
      eta: null,
      stops_before: null,
      completed_at: null,
      expires_at: NOW - HOUR + DAY,
    });
    const html = (await trackHtml(path)).text;
    expect(html).toContain('<h1>Not delivered</h1>');
    expect(html).not.toContain('http-equiv="refresh"');
  });
});

describe('the tracking page in headless Chromium at a phone’s width', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('shows the stop, its status, ETA, stops before it and the driver’s first name in 390 px, from its own origin only', async () => {
    const url = `${api.url}${await trackingPath('running', 3)}`;
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (['error', 'warning'].includes(message.type()))
        problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('dialog', (dialog) => problems.push(`dialog: ${dialog.message()}`));
    // The page's width as laid out (a string for the browser: the tests' types know no DOM).
    const scrollWidth = () => page.evaluate<number>('document.documentElement.scrollWidth');
    try {
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      expect((await page.locator('h1').textContent())?.trim()).toBe('On its way');
      expect(await page.locator('.from').textContent()).toBe(DC_NAME);
      const facts = Object.fromEntries(
        await page
          .locator('dl div')
          .evaluateAll((rows) =>
            rows.map((row) => [row.querySelector('dt')?.textContent, row.querySelector('dd')?.textContent]),
          ),
      );
      expect(facts).toEqual({
        Stop: 'Customer 3',
        Address: '3 Main St',
        'Stops before yours': '1',
        Driver: 'Ana',
      });
      expect(await page.locator('.lead').textContent()).toMatch(
        /^Expected \w{3}, \w{3} \d+, .+\d(\s|\u202f)?[AP]M\.$/,
      );
      // Fits the phone: nothing wider than the screen, however long a text.
      expect(await scrollWidth()).toBeLessThanOrEqual(390);
      expect(await page.locator('script').count()).toBe(0);
      await saveScreenshot(page, 'tracking.png');

      // The stop with markup in its name and address: shown as text, nothing run, still within the width.
      const marked = await page.goto(`${api.url}${await trackingPath('running', 2)}`);
      expect(marked?.status()).toBe(200);
      expect(await page.locator('dl div').first().locator('dd').textContent()).toBe(STOP_NAME);
      expect(await page.locator('dl div').nth(1).locator('dd').innerText()).toBe(STOP_ADDRESS);
      expect(await scrollWidth()).toBeLessThanOrEqual(390);
      await saveScreenshot(page, 'tracking-escaped.png');

      const origin = new URL(api.url).origin;
      expect(
        requests.filter((request) => !request.startsWith('data:') && new URL(request).origin !== origin),
      ).toEqual([]);
      expect(requests.filter((request) => !request.startsWith('data:'))).toHaveLength(2);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('the tracking page’s own throttle', () => {
  it('refuses a burst of tracking requests with 429 (1008) while the stage’s other public methods answer', async () => {
    const path = await trackingPath('planned', 0);
    const { burstLimit } = getTrackingPage.throttling;
    // Three times the burst of clients at once, as fast as each gets answers, until one is throttled.
    const answers = await hammerUntilThrottled({
      clients: 3 * burstLimit,
      request: () => trackJson(path, { retryThrottled: false }),
      notThrottled: 'no tracking request was throttled',
      // The page's bucket is empty from here on, the hammering takes every token it refills; the stage's
      // other methods have buckets of their own.
      meanwhile: async () => {
        const docs = await callRaw(api.url, 'GET', '/docs');
        expect(docs.status).toBe(200);
      },
    });
    expectThrottledAnswers(answers, (answer) => expectSuccess(answer, getTrackingPage));
  }, 120_000);
});
