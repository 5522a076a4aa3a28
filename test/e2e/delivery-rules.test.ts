import { beforeAll, describe, expect, it } from 'vitest';
import * as dcs from '../../functions/api/dcs/index';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import { NO_REQUIREMENTS } from '../../functions/models/delivery-requirements';
import {
  ageCheckDay,
  deliveryRulesHelpers,
  pinVisit,
  plainVisit,
  REFUSED_BARCODES,
  REFUSED_DEFAULTS,
  REFUSED_REQUIREMENTS,
  REFUSED_SCANS,
  routeStartedWebhookBody,
  withBarcodes,
  withRules,
} from '../support/delivery-rules';
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

/*
 * Delivery rules at the door (docs/api.md, Delivery rules): what a SUCCESSFUL visit of a stop must show. A
 * waypoint states its own in the import; its DC's settings hold defaults, which a route takes when imported.
 */

const fx = useTestApi('delivery-rules');
let c: DriverAppClient;
let globex: TestAccount;

const driverId = 'rules-driver';
const token = strongToken('rules-driver-login-token-01');
const {
  settingsPath,
  setDefaults,
  availableProof,
  attempt,
  expectNothingRecorded,
  reviseWithRulesAtSecondStop,
  trackingPathOf,
  trackedPin,
  entitiesHolding,
  resetPath,
  pinHashes,
  attemptAnalytics,
} = deliveryRulesHelpers(fx, () => c, token);

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

  it.each(REFUSED_REQUIREMENTS)(
    'refuses an import with %s with 1006 naming the field',
    async (_, requirements, message) => {
      const route = withRules(routeOf('rules-bad', { driverId }), 0, requirements);
      const response = await c.asAccount('POST', '/dcs/dc-1/invoiced-routes', { route });
      expect(expectError(response, 400, 1006)).toMatch(message);
    },
  );

  it.each(REFUSED_BARCODES)(
    'refuses an item with %s with 1006 naming the field',
    async (_, barcodes, message) => {
      const route = routeOf('rules-bad-barcodes', { driverId });
      const body = withBarcodes(route, barcodes);
      const response = await c.asAccount('POST', '/dcs/dc-1/invoiced-routes', { route: body });
      const text = expectError(response, 400, 1006);
      expect(text).toMatch(/^route\.waypoints\.0\.invoices\.0\.items\.0\.barcodes/);
      expect(text).toMatch(message);
    },
  );

  it('refuses default rules out of range with 1006 naming the field, and another account’s DC with 403', async () => {
    for (const [requirements, field] of REFUSED_DEFAULTS) {
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

describe('POST /driver/routes/{route_id}/waypoints/{waypoint_id}/attempts under delivery rules', () => {
  const proofRoute = withRules(routeOf('rules-proof', { waypoints: 3, driverId }), 0, {
    photos: 2,
    signature: true,
  });
  const proofStop = nth(proofRoute.waypoints, 0).id;
  const scanRoute = withRules(routeOf('rules-scan', { waypoints: 2, driverId }), 0, { scan_items: true });
  const scanStop = nth(scanRoute.waypoints, 0);
  const [firstItem, secondItem] = nth(scanStop.invoices, 0).items;
  /** A driver's attempt at the first stop of the proof route, or of the scan route. */
  const atProofStop = (body: AttemptBody) => attempt(proofRoute.id, proofStop, body);
  const atScanStop = (body: AttemptBody) => attempt(scanRoute.id, scanStop.id, body);

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
    const noPhotos = await atProofStop(visit({ proof_ids: [signature], signer_name: 'Ann' }));
    expect(expectError(noPhotos, 400, 9100)).toBe(
      `proof_ids: waypoint '${proofStop}' requires 2 PHOTO proofs; the attempt names 0`,
    );
    const onePhoto = await atProofStop(visit({ proof_ids: [photo, signature] }));
    expect(expectError(onePhoto, 400, 9100)).toMatch(/the attempt names 1$/);
    const secondPhoto = await availableProof(proofRoute.id, proofStop, 'PHOTO');
    const unsigned = await atProofStop(visit({ proof_ids: [photo, secondPhoto] }));
    expect(expectError(unsigned, 400, 9101)).toMatch(/^proof_ids: .* requires a SIGNATURE proof/);
    const nameless = await atProofStop(visit({ proof_ids: [photo, secondPhoto, signature] }));
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
      (await c.driverAttempt(token, proofRoute.id, stop, plainVisit('rules-later', 31, 'VISIT_LATER')))
        .requirements,
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
    const one = await atScanStop(visit('rules-scan-1', { scans: [scan(`BC-${firstItem?.id}`)] }));
    expect(expectError(one, 400, 9102)).toBe(
      `scans: waypoint '${scanStop.id}' requires every delivered item scanned; no scan matches a barcode of item '${secondItem?.id}'`,
    );
    // A scan naming an item whose barcode it is not counts for nothing.
    const wrong = await atScanStop(
      visit('rules-scan-2', {
        scans: [scan(`BC-${firstItem?.id}`), scan(`BC-${firstItem?.id}`, secondItem?.id)],
      }),
    );
    expectError(wrong, 400, 9102);
    const elsewhere = await atScanStop(
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
    const refused = await attempt(scanRoute.id, stop, plainVisit('rules-revised', 50));
    expectError(refused, 400, 9100);
  });

  it.each(REFUSED_SCANS)('refuses an attempt with %s with 1006 naming the field', async (_, extra, field) => {
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

describe('the customer’s PIN (requirements.pin)', () => {
  const pinRoute = withRules(routeOf('rules-pin', { waypoints: 3, driverId }), 0, { pin: true });
  const [pinStop, plainStop, thirdStop] = pinRoute.waypoints.map(({ id }) => id) as [string, string, string];
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
    const body = routeStartedWebhookBody(pinRoute.id, details);
    expect(body.waypoints.map((waypoint) => waypoint.pin)).toEqual([code, undefined, undefined]);
    // The event is the ERP's message; no other item holds the code.
    expect(await entitiesHolding(code)).toEqual(['EVENT']);
  });

  it('refuses a delivery without the code (9103), counts each wrong one (9104), and locks the stop after 5 (409, 9105)', async () => {
    const visit = (pin?: string) => pinVisit(30, pin);
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
    const later = await c.driverAttempt(
      token,
      pinRoute.id,
      pinStop,
      plainVisit('rules-pin-later', 31, 'VISIT_LATER'),
    );
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
    const visit = (pin: string) => pinVisit(40, pin);
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
    const refused = await attempt(pinRoute.id, plainStop, plainVisit('rules-pin-revised', 50));
    expectError(refused, 400, 9103);
    // The attempt analytics of the finished route say which visit gave the PIN.
    await c.driverAttempt(token, pinRoute.id, thirdStop, plainVisit('rules-pin-third', 51));
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
  const { visitAt, utcDay, dcDay, yearsBefore, visit } = ageCheckDay();
  const atAgeStop = (body: AttemptBody) => attempt(ageRoute.id, ageStop, body);
  /** Records a visit of the age-checked stop, as its driver. */
  const recordAtAgeStop = (body: AttemptBody) => c.driverAttempt(token, ageRoute.id, ageStop, body);

  beforeAll(async () => {
    await c.importRoute('dc-1', ageRoute);
    await c.driverStart(token, ageRoute.id, visitAt - 60_000);
  }, 120_000);

  it('refuses a delivery without an ID check (9106), or to a recipient under the age on the DC’s day (9107), and keeps no date of birth', async () => {
    expect(expectError(await atAgeStop(visit('rules-age-1', 'SUCCESSFUL')), 400, 9106)).toMatch(
      /^age_check: waypoint '.+' requires the recipient's ID checked \(at least 18 years old\)$/,
    );
    // 18 today in UTC, but not yet on the DC's day.
    const turning = yearsBefore(utcDay, 18);
    const young = expectError(await atAgeStop(visit('rules-age-1', 'SUCCESSFUL', turning)), 400, 9107);
    expect(young).toMatch(new RegExp(`^age_check\\.date_of_birth: the recipient is under 18 on ${dcDay} `));
    const future = expectError(await atAgeStop(visit('rules-age-1', 'SUCCESSFUL', utcDay)), 400, 1006);
    expect(future).toMatch(/^age_check\.date_of_birth: is after the day of the attempt/);
    const notADate = await atAgeStop(visit('rules-age-1', 'SUCCESSFUL', '2001-02-30'));
    expect(expectError(notADate, 400, 1006)).toMatch(/^age_check\.date_of_birth: /);
    await expectNothingRecorded(ageRoute.id, ageStop);

    // A visit that delivers nothing keeps its check, under age included; then an adult takes it.
    const failed = await recordAtAgeStop(visit('rules-age-2', 'FAILED', turning));
    expect(failed.age_check).toEqual({ method: 'ID_CHECKED', result: 'UNDER_AGE', timestamp: visitAt });
    const adult = yearsBefore(dcDay, 18);
    const delivered = await recordAtAgeStop(visit('rules-age-3', 'SUCCESSFUL', adult));
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
