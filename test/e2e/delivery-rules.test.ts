import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as analytics from '../../functions/api/analytics/index';
import * as dcs from '../../functions/api/dcs/index';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import * as tracking from '../../functions/api/tracking/index';
import { db } from '../../functions/data/client';
import { NO_REQUIREMENTS } from '../../functions/models/delivery-requirements';
import { type WebhookEvent, webhookBodyOf } from '../../functions/models/event-catalog';
import {
  type AttemptBody,
  at,
  attemptPath,
  type DriverAppClient,
  driverAppClient,
  nth,
  routeOf,
} from '../support/driver-app';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { callRaw, expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { waitForImport } from '../support/routes';
import { waitUntil } from '../support/webhook-receiver';

/*
 * Delivery rules at the door (docs/api.md, Delivery rules): what a SUCCESSFUL visit of a stop must show. A
 * waypoint states its own in the import; its DC's settings hold defaults, which a route takes when imported.
 */

const fx = useTestApi('delivery-rules');
let c: DriverAppClient;
let globex: TestAccount;

const driverId = 'rules-driver';
const token = strongToken('rules-driver-login-token-01');

type Route = ReturnType<typeof routeOf>;

/** `route` with `requirements` on its waypoint `index` and barcodes on that waypoint's items. */
function withRules(route: Route, index: number, requirements: Record<string, unknown> | undefined): Route {
  return {
    ...route,
    waypoints: route.waypoints.map((waypoint, position) =>
      position !== index
        ? waypoint
        : {
            ...waypoint,
            ...(requirements && { requirements }),
            invoices: waypoint.invoices.map((invoice) => ({
              ...invoice,
              items: invoice.items.map((item) => ({ ...item, barcodes: [`BC-${item.id}`] })),
            })),
          },
    ),
  };
}

/**
 * Sends a revision of the started `route` in which its second stop requires `requirements` (its first, already
 * visited, as it was), and waits for the revision to be applied.
 */
async function reviseWithRulesAtSecondStop(route: Route, requirements: Record<string, unknown>) {
  const revision = withRules(route, 1, requirements);
  const accepted = await c.asAccount('PUT', `/dcs/dc-1/routes/${route.id}/revision`, {
    route: {
      ...revision,
      waypoints: revision.waypoints.map((waypoint, index) => (index === 0 ? route.waypoints[0] : waypoint)),
    },
  });
  const { txid } = expectSuccess(accepted, routes.reviseRoute, 202) as { txid: string };
  const ended = await waitForImport(fx.api.url, c.account.key, 'dc-1', txid);
  expect(ended.status, ended.text).toBe(200);
}

const settingsPath = (dcId: string) => `/dcs/${dcId}/settings`;

async function setDefaults(requirements: Record<string, unknown>, dcId = 'dc-1') {
  const response = await c.asAccount('PATCH', settingsPath(dcId), { delivery_requirements: requirements });
  return (expectSuccess(response, dcs.updateDcSettings) as { settings: { delivery_requirements: unknown } })
    .settings.delivery_requirements;
}

beforeAll(async () => {
  c = driverAppClient(fx.api, await fx.account());
  globex = await fx.account('Globex', [{ dcId: 'gx-1' }]);
  await c.createDriver('dc-1', driverId, token);
  await c.createDriver('dc-2', 'rules-driver-2', strongToken('rules-driver-2-login-token1'));
});

describe('requirements of a stop: import, DC defaults and reads', () => {
  it('shows a waypoint’s own rules and its items’ barcodes on the route, the waypoint and the driver app', async () => {
    const route = withRules(routeOf('rules-own', { driverId }), 0, { photos: 2, signature: true });
    await c.importRoute('dc-1', route);
    const expected = { ...NO_REQUIREMENTS, photos: 2, signature: true };
    const [first, second] = await c.readWaypoints('dc-1', route.id);
    expect(first?.requirements).toEqual(expected);
    expect(second?.requirements).toEqual(NO_REQUIREMENTS);
    const waypointId = nth(route.waypoints, 0).id;
    expect((await c.readWaypoint('dc-1', route.id, waypointId)).requirements).toEqual(expected);
    const driverRoute = (await c.driverRoutes(token)).find((candidate) => candidate.id === route.id);
    const driverWaypoint = nth(driverRoute?.waypoints ?? [], 0);
    expect(driverWaypoint.requirements).toEqual(expected);
    const item = nth(nth(driverWaypoint.invoices, 0).items, 0);
    expect(item.barcodes).toEqual([`BC-${item.id}`]);
    const invoices = await c.readInvoices('dc-1', route.id);
    expect(nth(nth(invoices, 0).items, 0).barcodes).toEqual([`BC-${item.id}`]);
    expect(nth(nth(invoices, 1).items, 0).barcodes).toEqual([]);
  }, 120_000);

  it('takes the DC’s defaults at import; each rule a waypoint states wins, the others are the DC’s', async () => {
    expect(await setDefaults({ photos: 1, signature: true }, 'dc-2')).toEqual({
      ...NO_REQUIREMENTS,
      photos: 1,
      signature: true,
    });
    const route = withRules(routeOf('rules-defaults', { driverId: 'rules-driver-2' }), 0, {
      photos: 0,
      signature: false,
      scan_items: true,
    });
    await c.importRoute('dc-2', route);
    const [own, plain] = await c.readWaypoints('dc-2', route.id);
    expect(own?.requirements).toEqual({ ...NO_REQUIREMENTS, scan_items: true });
    expect(plain?.requirements).toEqual({ ...NO_REQUIREMENTS, photos: 1, signature: true });
    // A route imported before the change keeps the defaults it took; dc-1 never had any.
    await setDefaults({ scan_items: true }, 'dc-2');
    expect((await c.readWaypoints('dc-2', route.id))[1]?.requirements).toEqual(plain?.requirements);
    const settings = expectSuccess(await c.asAccount('GET', settingsPath('dc-2')), dcs.getDcSettings) as {
      settings: { delivery_requirements: unknown; arrival_radius_meters: number };
    };
    expect(settings.settings.delivery_requirements).toEqual({ ...NO_REQUIREMENTS, scan_items: true });
    expect(settings.settings.arrival_radius_meters).toBe(100);
    await setDefaults({}, 'dc-2');
  }, 120_000);

  it.each([
    ['photos above 10', { photos: 11 }, /^route\.waypoints\.0\.requirements\.photos: /],
    ['photos not whole', { photos: 1.5 }, /^route\.waypoints\.0\.requirements\.photos: /],
    ['minimum_age 0', { minimum_age: 0 }, /^route\.waypoints\.0\.requirements\.minimum_age: /],
    ['a rule that does not exist', { signtaure: true }, /^route\.waypoints\.0\.requirements.*signtaure/],
    ['pin not a boolean', { pin: 'yes' }, /^route\.waypoints\.0\.requirements\.pin: /],
    ['minimum_age above 125', { minimum_age: 126 }, /^route\.waypoints\.0\.requirements\.minimum_age: /],
  ])('refuses an import with %s with 1006 naming the field', async (_, requirements, message) => {
    const route = withRules(routeOf('rules-bad', { driverId }), 0, requirements);
    const response = await c.asAccount('POST', '/dcs/dc-1/invoiced-routes', { route });
    expect(expectError(response, 400, 1006)).toMatch(message);
  });

  it.each([
    ['11 barcodes', Array.from({ length: 11 }, (_, index) => `B${index}`), /barcodes: /],
    ['a barcode twice', ['B1', 'B1'], /barcodes\.1: "B1" is listed twice|barcodes\.1: 'B1' is listed twice/],
    ['an empty barcode', [''], /barcodes\.0: /],
  ])('refuses an item with %s with 1006 naming the field', async (_, barcodes, message) => {
    const route = routeOf('rules-bad-barcodes', { driverId });
    const body = {
      ...route,
      waypoints: route.waypoints.map((waypoint) => ({
        ...waypoint,
        invoices: waypoint.invoices.map((invoice) => ({
          ...invoice,
          items: invoice.items.map((item) => ({ ...item, barcodes })),
        })),
      })),
    };
    const response = await c.asAccount('POST', '/dcs/dc-1/invoiced-routes', { route: body });
    const text = expectError(response, 400, 1006);
    expect(text).toMatch(/^route\.waypoints\.0\.invoices\.0\.items\.0\.barcodes/);
    expect(text).toMatch(message);
  });

  it('refuses default rules out of range with 1006 naming the field, and another account’s DC with 403', async () => {
    const cases: [unknown, string][] = [
      [{ photos: -1 }, 'delivery_requirements.photos'],
      [{ minimum_age: 126 }, 'delivery_requirements.minimum_age'],
      [{ scan_items: 'true' }, 'delivery_requirements.scan_items'],
      [{ pin: 1 }, 'delivery_requirements.pin'],
      [{ minimum_age: 18.5 }, 'delivery_requirements.minimum_age'],
    ];
    for (const [requirements, field] of cases) {
      const response = await c.asAccount('PATCH', settingsPath('dc-1'), {
        delivery_requirements: requirements,
      });
      expect(expectError(response, 400, 1006).startsWith(`${field}:`)).toBe(true);
    }
    const change = { delivery_requirements: { photos: 1 } };
    expectError(await fx.as(globex.key, 'PATCH', settingsPath('dc-1'), change), 403, 1002);
    expectError(await fx.as(globex.key, 'GET', settingsPath('dc-1')), 403, 1002);
    const own = expectSuccess(await c.asAccount('GET', settingsPath('dc-1')), dcs.getDcSettings) as {
      settings: { delivery_requirements: unknown };
    };
    expect(own.settings.delivery_requirements).toEqual(NO_REQUIREMENTS);
  });

  it('answers another account’s route with 403 or 404, never its rules', async () => {
    const response = await fx.as(globex.key, 'GET', '/dcs/dc-1/routes/rules-own/waypoints');
    expectError(response, 403, 1002);
    const own = await fx.as(globex.key, 'GET', '/dcs/gx-1/routes/rules-own/waypoints');
    expectError(own, 404, 3003);
  });
});

/** A proof of `type` of the waypoint, uploaded and checked: its id once AVAILABLE. */
async function availableProof(routeId: string, waypointId: string, type: 'PHOTO' | 'SIGNATURE') {
  const bytes = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.alloc(120, 7),
  ]);
  const asked = await c.asDriver(token, 'POST', `/driver/routes/${routeId}/waypoints/${waypointId}/proofs`, {
    type,
    content_type: 'image/png',
    size_bytes: bytes.length,
  });
  const proof = (
    expectSuccess(asked, driverApp.createDriverProof) as {
      proof: { id: string; upload_url: string; upload_headers: Record<string, string> };
    }
  ).proof;
  // The headers the link was signed with (If-None-Match: * among them), as a driver app sends them; fetch
  // sets the Content-Length of the body itself.
  const { 'Content-Length': _, ...headers } = proof.upload_headers;
  const put = await fetch(proof.upload_url, { method: 'PUT', body: new Uint8Array(bytes), headers });
  expect(put.status).toBe(200);
  await waitUntil(`proof ${proof.id} checked`, async () => {
    const listed = await c.asAccount('GET', `/dcs/dc-1/routes/${routeId}/waypoints/${waypointId}/proofs`);
    const { proofs } = expectSuccess(listed, routes.listWaypointProofs) as {
      proofs: { id: string; status: string }[];
    };
    return proofs.find((candidate) => candidate.id === proof.id && candidate.status === 'AVAILABLE');
  });
  return proof.id;
}

const attempt = (routeId: string, waypointId: string, body: AttemptBody, driverToken = token) =>
  c.asDriver(driverToken, 'POST', attemptPath(routeId, waypointId), body);

/** The waypoint has no attempt and the route no WAYPOINT_STATUS_CHANGED: a refused attempt wrote nothing. */
async function expectNothingRecorded(routeId: string, waypointId: string) {
  expect((await c.readWaypoint('dc-1', routeId, waypointId)).attempts).toEqual([]);
  expect(await c.eventTypes(routeId)).not.toContain('WAYPOINT_STATUS_CHANGED');
}

describe('POST /driver/routes/{route_id}/waypoints/{waypoint_id}/attempts under delivery rules', () => {
  const proofRoute = withRules(routeOf('rules-proof', { waypoints: 3, driverId }), 0, {
    photos: 2,
    signature: true,
  });
  const proofStop = nth(proofRoute.waypoints, 0).id;
  const scanRoute = withRules(routeOf('rules-scan', { waypoints: 2, driverId }), 0, { scan_items: true });
  const scanStop = nth(scanRoute.waypoints, 0);
  const [firstItem, secondItem] = nth(scanStop.invoices, 0).items;

  beforeAll(async () => {
    await Promise.all([c.importRoute('dc-1', proofRoute), c.importRoute('dc-1', scanRoute)]);
    await c.driverStart(token, proofRoute.id, at(10));
    await c.driverStart(token, scanRoute.id, at(10));
  }, 120_000);

  it('refuses a SUCCESSFUL visit short of photos (9100) or a signature (9101), naming what is missing, and writes nothing', async () => {
    const photo = await availableProof(proofRoute.id, proofStop, 'PHOTO');
    const signature = await availableProof(proofRoute.id, proofStop, 'SIGNATURE');
    const visit = (extra: Partial<AttemptBody>): AttemptBody => ({
      id: 'rules-proof-visit',
      timestamp: at(30),
      status: 'SUCCESSFUL',
      ...extra,
    });
    const noPhotos = await attempt(
      proofRoute.id,
      proofStop,
      visit({ proof_ids: [signature], signer_name: 'Ann' }),
    );
    expect(expectError(noPhotos, 400, 9100)).toBe(
      `proof_ids: waypoint '${proofStop}' requires 2 PHOTO proofs; the attempt names 0`,
    );
    const onePhoto = await attempt(proofRoute.id, proofStop, visit({ proof_ids: [photo, signature] }));
    expect(expectError(onePhoto, 400, 9100)).toMatch(/the attempt names 1$/);
    const secondPhoto = await availableProof(proofRoute.id, proofStop, 'PHOTO');
    const unsigned = await attempt(proofRoute.id, proofStop, visit({ proof_ids: [photo, secondPhoto] }));
    expect(expectError(unsigned, 400, 9101)).toMatch(/^proof_ids: .* requires a SIGNATURE proof/);
    const nameless = await attempt(
      proofRoute.id,
      proofStop,
      visit({ proof_ids: [photo, secondPhoto, signature] }),
    );
    expect(expectError(nameless, 400, 9101)).toMatch(/^signer_name: /);
    await expectNothingRecorded(proofRoute.id, proofStop);
    // The proofs stay free for the attempt that meets the rules.
    const body = visit({ proof_ids: [photo, secondPhoto, signature], signer_name: 'Ann' });
    const recorded = await c.driverAttempt(token, proofRoute.id, proofStop, body);
    expect(recorded).toMatchObject({
      proof_ids: [photo, secondPhoto, signature],
      signer_name: 'Ann',
      requirements: { ...NO_REQUIREMENTS, photos: 2, signature: true },
    });
  });

  it('holds FAILED and VISIT_LATER visits to no rule, and a stop without rules to none', async () => {
    const stop = nth(proofRoute.waypoints, 1).id;
    expect(
      (
        await c.driverAttempt(token, proofRoute.id, stop, {
          id: 'rules-later',
          timestamp: at(31),
          status: 'VISIT_LATER',
        })
      ).requirements,
    ).toEqual(NO_REQUIREMENTS);
    const strict = withRules(routeOf('rules-failed', { driverId }), 0, {
      photos: 1,
      signature: true,
      scan_items: true,
    });
    await c.importRoute('dc-1', strict);
    await c.driverStart(token, strict.id, at(10));
    // A FAILED visit that still delivers an item is held to the rules.
    const partial = await attempt(strict.id, nth(strict.waypoints, 0).id, {
      id: 'rules-failed-partial',
      timestamp: at(33),
      status: 'FAILED',
      reason: { code: 'DAMAGED', message: 'one case crushed' },
      items: [{ id: nth(nth(nth(strict.waypoints, 0).invoices, 0).items, 0).id, status: 'SUCCESSFUL' }],
    });
    expectError(partial, 400, 9100);
    const failed = await c.driverAttempt(token, strict.id, nth(strict.waypoints, 0).id, {
      id: 'rules-failed-visit',
      timestamp: at(32),
      status: 'FAILED',
      reason: { code: 'CLOSED', message: 'shop closed' },
    });
    expect(failed.status).toBe('FAILED');
  });

  it('matches scans to the items’ barcodes, keeps mismatches, and refuses an unscanned delivered item with 9102', async () => {
    const visit = (id: string, extra: Partial<AttemptBody>): AttemptBody => ({
      id,
      timestamp: at(40),
      status: 'SUCCESSFUL',
      ...extra,
    });
    const scan = (value: string, item_id?: string) => ({
      value,
      timestamp: at(39),
      ...(item_id && { item_id }),
    });
    const one = await attempt(
      scanRoute.id,
      scanStop.id,
      visit('rules-scan-1', { scans: [scan(`BC-${firstItem?.id}`)] }),
    );
    expect(expectError(one, 400, 9102)).toBe(
      `scans: waypoint '${scanStop.id}' requires every delivered item scanned; no scan matches a barcode of item '${secondItem?.id}'`,
    );
    // A scan naming an item whose barcode it is not counts for nothing.
    const wrong = await attempt(
      scanRoute.id,
      scanStop.id,
      visit('rules-scan-2', {
        scans: [scan(`BC-${firstItem?.id}`), scan(`BC-${firstItem?.id}`, secondItem?.id)],
      }),
    );
    expectError(wrong, 400, 9102);
    const elsewhere = await attempt(
      scanRoute.id,
      scanStop.id,
      visit('rules-scan-3', {
        scans: [scan('X', nth(nth(nth(scanRoute.waypoints, 1).invoices, 0).items, 0).id)],
      }),
    );
    expect(expectError(elsewhere, 400, 3013)).toMatch(/^scans: /);
    await expectNothingRecorded(scanRoute.id, scanStop.id);
    // An item the visit fails needs no scan; a value matching nothing is kept as a mismatch.
    const recorded = await c.driverAttempt(
      token,
      scanRoute.id,
      scanStop.id,
      visit('rules-scan-4', {
        items: [
          { id: secondItem?.id as string, status: 'FAILED', reason: { code: 'REFUSED', message: 'no' } },
        ],
        scans: [scan(`BC-${firstItem?.id}`, firstItem?.id), scan('UNKNOWN-1')],
      }),
    );
    expect(recorded.scans).toEqual([
      {
        value: `BC-${firstItem?.id}`,
        timestamp: at(39),
        item_id: firstItem?.id,
        matched_item_id: firstItem?.id,
      },
      { value: 'UNKNOWN-1', timestamp: at(39), item_id: null, matched_item_id: null },
    ]);
    const shown = await c.readWaypoint('dc-1', scanRoute.id, scanStop.id);
    expect(nth(shown.attempts, 0).scans).toEqual(recorded.scans);
  });

  it('holds a visit to a rule a revision added after the route started', async () => {
    const stop = nth(scanRoute.waypoints, 1).id;
    await reviseWithRulesAtSecondStop(scanRoute, { photos: 1 });
    expect((await c.readWaypoint('dc-1', scanRoute.id, stop)).requirements).toEqual({
      ...NO_REQUIREMENTS,
      photos: 1,
    });
    const refused = await attempt(scanRoute.id, stop, {
      id: 'rules-revised',
      timestamp: at(50),
      status: 'SUCCESSFUL',
    });
    expectError(refused, 400, 9100);
  });

  it.each([
    [
      'more than 200 scans',
      { scans: Array.from({ length: 201 }, () => ({ value: 'A', timestamp: at(1) })) },
      'scans: ',
    ],
    ['an empty scan value', { scans: [{ value: '', timestamp: at(1) }] }, 'scans.0.value: '],
    ['a scan without a timestamp', { scans: [{ value: 'A' }] }, 'scans.0.timestamp: '],
  ])('refuses an attempt with %s with 1006 naming the field', async (_, extra, field) => {
    const body = { id: 'rules-bad-scan', timestamp: at(1), status: 'SUCCESSFUL', ...extra };
    const response = await c.asDriver(
      token,
      'POST',
      attemptPath(proofRoute.id, nth(proofRoute.waypoints, 2).id),
      body,
    );
    expect(expectError(response, 400, 1006).startsWith(field)).toBe(true);
  });

  it('answers another account’s driver 404 for the route, whatever its rules', async () => {
    const other = driverAppClient(fx.api, globex);
    const otherToken = strongToken('rules-globex-driver-token-1');
    await other.createDriver('gx-1', 'rules-globex-driver', otherToken);
    const response = await attempt(
      proofRoute.id,
      nth(proofRoute.waypoints, 2).id,
      { id: 'rules-globex', timestamp: at(1), status: 'SUCCESSFUL' },
      otherToken,
    );
    expectError(response, 404, 3003);
  });
});

// ---- The customer's PIN and the age check ----

/** The path of the tracking page of the route's waypoint `index` (its `tracking_url` under the API). */
async function trackingPathOf(dcId: string, routeId: string, index: number): Promise<string> {
  const url = nth(await c.readWaypoints(dcId, routeId), index).tracking_url as string;
  expect(url.startsWith(`${fx.api.url}/track/`)).toBe(true);
  return url.slice(fx.api.url.length);
}

/** The code the tracking page of the route's waypoint `index` shows its customer (null: none). */
async function trackedPin(dcId: string, routeId: string, index: number): Promise<string | null> {
  const response = await fx.request('GET', await trackingPathOf(dcId, routeId, index));
  return (expectSuccess(response, tracking.getTrackingPage) as { pin: string | null }).pin;
}

/** True when `value`, or any string inside it, is exactly `text`. */
const holds = (value: unknown, text: string): boolean =>
  typeof value === 'string'
    ? value === text
    : Array.isArray(value)
      ? value.some((inner) => holds(inner, text))
      : typeof value === 'object' && value !== null && !(value instanceof Uint8Array)
        ? Object.values(value).some((inner) => holds(inner, text))
        : false;

/** The entities of the items of this file's table that hold `text` as a string value anywhere. */
async function entitiesHolding(text: string): Promise<string[]> {
  const found: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({ TableName: fx.api.tableName, ConsistentRead: true, ExclusiveStartKey }),
    );
    for (const item of page.Items ?? []) if (holds(item, text)) found.push(String(item.entity));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return found;
}

/** The stored hash of each PIN of the route, by waypoint id: what a revision must keep or change. */
async function pinHashes(routeId: string): Promise<Record<string, string>> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: fx.api.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pin)',
      ExpressionAttributeValues: { ':pk': `ROUTE#${c.account.accountId}/${routeId}`, ':pin': 'PIN#' },
      ConsistentRead: true,
    }),
  );
  return Object.fromEntries(Items.map((item) => [item.waypoint_id as string, item.pin_hash as string]));
}

const resetPath = (dcId: string, routeId: string, waypointId: string) =>
  `/dcs/${dcId}/routes/${routeId}/waypoints/${waypointId}/reset-pin`;

/** The attempt analytics of a finished route, one row per attempt. */
async function attemptAnalytics(routeId: string): Promise<Record<string, unknown>[]> {
  const response = await c.asAccount('GET', `/dcs/dc-1/routes/${routeId}/analytics/attempts`);
  return (expectSuccess(response, analytics.getAttemptAnalytics) as { attempt_analytics: [] })
    .attempt_analytics;
}

describe('the customer’s PIN (requirements.pin)', () => {
  const pinRoute = withRules(routeOf('rules-pin', { waypoints: 3, driverId }), 0, { pin: true });
  const [pinStop, plainStop, thirdStop] = pinRoute.waypoints.map((waypoint) => waypoint.id) as [
    string,
    string,
    string,
  ];
  let code = '';

  beforeAll(async () => {
    await c.importRoute('dc-1', pinRoute);
  }, 120_000);

  it('draws a 6-digit code at import, shown on the stop’s tracking page and in ROUTE_STARTED, never to the driver app, and stored only hashed and sealed', async () => {
    code = (await trackedPin('dc-1', pinRoute.id, 0)) as string;
    expect(code).toMatch(/^\d{6}$/);
    expect(await trackedPin('dc-1', pinRoute.id, 1)).toBeNull();
    const page = await callRaw(fx.api.url, 'GET', await trackingPathOf('dc-1', pinRoute.id, 0), {
      headers: { Accept: 'text/html' },
    });
    expect(page.text).toContain(`<dd>${code}</dd>`);
    expect(await entitiesHolding(code)).toEqual([]);
    expect(JSON.stringify(await c.driverRoutes(token))).not.toContain(`"${code}"`);

    const started = await c.asDriver(token, 'POST', `/driver/routes/${pinRoute.id}/start`, {
      timestamp: at(10),
    });
    expectSuccess(started, driverApp.startDriverRoute);
    expect(started.text).not.toContain(`"${code}"`);
    const [event] = (await c.eventsOf(pinRoute.id)).filter((item) => item.event_type === 'ROUTE_STARTED');
    const { details } = event as unknown as { details: { pins: (string | null)[] } };
    expect(details.pins).toEqual([code, null, null]);
    const body = webhookBodyOf({
      event_id: 'evt_1',
      type: 'ROUTE_STARTED',
      dc_id: 'dc-1',
      route_id: pinRoute.id,
      sequence: 2,
      occurred_at: 1,
      details,
    } as unknown as WebhookEvent) as unknown as { waypoints: Record<string, unknown>[] };
    expect(body.waypoints.map((waypoint) => waypoint.pin)).toEqual([code, undefined, undefined]);
    // The event is the ERP's message; no other item holds the code.
    expect(await entitiesHolding(code)).toEqual(['EVENT']);
  });

  it('refuses a delivery without the code (9103), counts each wrong one (9104), and locks the stop after 5 (409, 9105)', async () => {
    const visit = (pin?: string): AttemptBody => ({
      id: 'rules-pin-visit',
      timestamp: at(30),
      status: 'SUCCESSFUL',
      ...(pin !== undefined && { pin }),
    });
    expect(expectError(await attempt(pinRoute.id, pinStop, visit()), 400, 9103)).toBe(
      `pin: waypoint '${pinStop}' requires the customer's PIN`,
    );
    const malformed = expectError(await attempt(pinRoute.id, pinStop, visit('12345')), 400, 1006);
    expect(malformed).toMatch(/^pin: /);
    expect(malformed).not.toContain('12345');
    const wrong = code === '000000' ? '000001' : '000000';
    for (const left of [4, 3, 2, 1]) {
      const refused = expectError(await attempt(pinRoute.id, pinStop, visit(wrong)), 400, 9104);
      expect(refused).toMatch(new RegExp(`; ${left} (tries are|try is) left before its PIN check locks$`));
      expect(refused).not.toContain(wrong);
    }
    expect(expectError(await attempt(pinRoute.id, pinStop, visit(wrong)), 409, 9105)).toMatch(
      /^pin: .*locked after 5 wrong codes/,
    );
    // Locked: the right code too, until the dispatcher resets it.
    expectError(await attempt(pinRoute.id, pinStop, visit(code)), 409, 9105);
    await expectNothingRecorded(pinRoute.id, pinStop);
    // A visit that delivers nothing is held to no PIN, locked or not.
    const later = await c.driverAttempt(token, pinRoute.id, pinStop, {
      id: 'rules-pin-later',
      timestamp: at(31),
      status: 'VISIT_LATER',
    });
    expect(later).toMatchObject({ pin_verified: false, requirements: { ...NO_REQUIREMENTS, pin: true } });
  });

  it('resets the stop’s PIN for the dispatcher only: a new code, shown on the tracking page, and the lock ended', async () => {
    expectError(await fx.as(globex.key, 'POST', resetPath('dc-1', pinRoute.id, pinStop)), 403, 1002);
    expectError(await fx.as(globex.key, 'POST', resetPath('gx-1', pinRoute.id, pinStop)), 404, 3003);
    expectError(await c.asAccount('POST', resetPath('dc-1', pinRoute.id, plainStop)), 409, 9108);
    expectError(await c.asAccount('POST', resetPath('dc-1', pinRoute.id, 'no-such-stop')), 400, 3013);
    // A driver's login token is no API key.
    expectError(await c.asDriver(token, 'POST', resetPath('dc-1', pinRoute.id, pinStop)), 401, 1001);
    const reset = await c.asAccount('POST', resetPath('dc-1', pinRoute.id, pinStop));
    const answer = expectSuccess(reset, routes.resetWaypointPin) as { waypoint_id: string; pin: string };
    expect(answer).toEqual({ waypoint_id: pinStop, pin: expect.stringMatching(/^\d{6}$/) });
    expect(await trackedPin('dc-1', pinRoute.id, 0)).toBe(answer.pin);
    const visit = (pin: string): AttemptBody => ({
      id: 'rules-pin-visit',
      timestamp: at(40),
      status: 'SUCCESSFUL',
      pin,
    });
    // One in a million draws the same code again: then the old one is no wrong code to try.
    if (answer.pin !== code) {
      const old = expectError(await attempt(pinRoute.id, pinStop, visit(code)), 400, 9104);
      expect(old).toMatch(/; 4 tries are left/);
    }
    const recorded = await c.driverAttempt(token, pinRoute.id, pinStop, visit(answer.pin));
    expect(recorded).toMatchObject({ status: 'SUCCESSFUL', pin_verified: true, age_check: null });
    expect(JSON.stringify(recorded)).not.toContain(`"${answer.pin}"`);
    // Delivered: the page no longer shows a code.
    expect(await trackedPin('dc-1', pinRoute.id, 0)).toBeNull();
  });

  it('draws a code for a stop a revision requires after the start, and keeps the codes it had', async () => {
    const before = await pinHashes(pinRoute.id);
    expect(Object.keys(before)).toEqual([pinStop]);
    await reviseWithRulesAtSecondStop(pinRoute, { pin: true });
    const after = await pinHashes(pinRoute.id);
    expect(after[pinStop]).toBe(before[pinStop]);
    expect(Object.keys(after).sort()).toEqual([pinStop, plainStop].sort());
    expect(await trackedPin('dc-1', pinRoute.id, 1)).toMatch(/^\d{6}$/);
    expect(await trackedPin('dc-1', pinRoute.id, 2)).toBeNull();
    const refused = await attempt(pinRoute.id, plainStop, {
      id: 'rules-pin-revised',
      timestamp: at(50),
      status: 'SUCCESSFUL',
    });
    expectError(refused, 400, 9103);
    // The attempt analytics of the finished route say which visit gave the PIN.
    await c.driverAttempt(token, pinRoute.id, thirdStop, {
      id: 'rules-pin-third',
      timestamp: at(51),
      status: 'SUCCESSFUL',
    });
    await c.driverFinish(token, pinRoute.id, at(60));
    const rows = await attemptAnalytics(pinRoute.id);
    expect(rows.map((row) => [row.attempt_id, row.pin_verified, row.age_check_result])).toEqual([
      ['rules-pin-later', 'FALSE', null],
      ['rules-pin-visit', 'TRUE', null],
      ['rules-pin-third', 'FALSE', null],
    ]);
  });

  it('takes the DC’s default PIN and age rules for the stops that state none, and a stop’s own over them', async () => {
    await setDefaults({ pin: true, minimum_age: 21 }, 'dc-2');
    const route = withRules(routeOf('rules-pin-defaults', { driverId: 'rules-driver-2' }), 0, {
      pin: false,
      minimum_age: null,
    });
    await c.importRoute('dc-2', route);
    await setDefaults({}, 'dc-2');
    const [own, defaulted] = await c.readWaypoints('dc-2', route.id);
    expect(own?.requirements).toEqual(NO_REQUIREMENTS);
    expect(defaulted?.requirements).toEqual({ ...NO_REQUIREMENTS, pin: true, minimum_age: 21 });
    expect(await trackedPin('dc-2', route.id, 0)).toBeNull();
    expect(await trackedPin('dc-2', route.id, 1)).toMatch(/^\d{6}$/);
  });
});

describe('the age check (requirements.minimum_age)', () => {
  const ageRoute = withRules(routeOf('rules-age', { driverId }), 0, { minimum_age: 18 });
  const ageStop = nth(ageRoute.waypoints, 0).id;
  const DAY = 24 * 3_600_000;
  // 02:00 UTC, within the last day: still the day before in the DC's zone (America/Chicago).
  const today = new Date(Math.floor(Date.now() / DAY) * DAY + 2 * 3_600_000);
  const visitAt = (today.getTime() > Date.now() ? today.getTime() - DAY : today.getTime()) as number;
  const utcDay = new Date(visitAt).toISOString().slice(0, 10);
  const dcDay = new Date(visitAt - DAY).toISOString().slice(0, 10);
  const yearsBefore = (day: string, years: number) => `${Number(day.slice(0, 4)) - years}${day.slice(4)}`;
  const visit = (id: string, status: AttemptBody['status'], dateOfBirth?: string): AttemptBody => ({
    id,
    timestamp: visitAt,
    status,
    ...(status === 'FAILED' && { reason: { code: 'UNDER_AGE', message: 'no adult at the door' } }),
    ...(dateOfBirth !== undefined && { age_check: { method: 'ID_CHECKED', date_of_birth: dateOfBirth } }),
  });

  beforeAll(async () => {
    await c.importRoute('dc-1', ageRoute);
    await c.driverStart(token, ageRoute.id, visitAt - 60_000);
  }, 120_000);

  it('refuses a delivery without an ID check (9106), or to a recipient under the age on the DC’s day (9107), and keeps no date of birth', async () => {
    expect(
      expectError(await attempt(ageRoute.id, ageStop, visit('rules-age-1', 'SUCCESSFUL')), 400, 9106),
    ).toMatch(/^age_check: waypoint '.+' requires the recipient's ID checked \(at least 18 years old\)$/);
    // 18 today in UTC, but not yet on the DC's day.
    const turning = yearsBefore(utcDay, 18);
    const young = expectError(
      await attempt(ageRoute.id, ageStop, visit('rules-age-1', 'SUCCESSFUL', turning)),
      400,
      9107,
    );
    expect(young).toMatch(new RegExp(`^age_check\\.date_of_birth: the recipient is under 18 on ${dcDay} `));
    const future = expectError(
      await attempt(ageRoute.id, ageStop, visit('rules-age-1', 'SUCCESSFUL', utcDay)),
      400,
      1006,
    );
    expect(future).toMatch(/^age_check\.date_of_birth: is after the day of the attempt/);
    const notADate = await attempt(ageRoute.id, ageStop, visit('rules-age-1', 'SUCCESSFUL', '2001-02-30'));
    expect(expectError(notADate, 400, 1006)).toMatch(/^age_check\.date_of_birth: /);
    await expectNothingRecorded(ageRoute.id, ageStop);

    // A visit that delivers nothing keeps its check, under age included; then an adult takes it.
    const failed = await c.driverAttempt(
      token,
      ageRoute.id,
      ageStop,
      visit('rules-age-2', 'FAILED', turning),
    );
    expect(failed.age_check).toEqual({ method: 'ID_CHECKED', result: 'UNDER_AGE', timestamp: visitAt });
    const adult = yearsBefore(dcDay, 18);
    const delivered = await c.driverAttempt(
      token,
      ageRoute.id,
      ageStop,
      visit('rules-age-3', 'SUCCESSFUL', adult),
    );
    expect(delivered.age_check).toEqual({ method: 'ID_CHECKED', result: 'OLD_ENOUGH', timestamp: visitAt });
    const shown = JSON.stringify(await c.readWaypoint('dc-1', ageRoute.id, ageStop));
    expect(shown).not.toContain(turning);
    expect(shown).not.toContain(adult);
    expect(await entitiesHolding(adult)).toEqual([]);
    await c.driverFinish(token, ageRoute.id, visitAt + 60_000);
    const rows = await attemptAnalytics(ageRoute.id);
    expect(rows.map((row) => [row.attempt_id, row.age_check_result])).toEqual([
      ['rules-age-2', 'UNDER_AGE'],
      ['rules-age-3', 'OLD_ENOUGH'],
    ]);
  });
});
