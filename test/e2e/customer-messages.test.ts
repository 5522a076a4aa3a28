import { beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import {
  insertNotification,
  listNotifications,
  type NotificationRecord,
  reclaimQueuedNotification,
} from '../../functions/data/notifications';
import { DEFAULT_SPEED_KMH, type LatLng, ROAD_FACTOR, travelMillis } from '../../functions/domain/etas';
import { LATE_MOVE_MS } from '../../functions/domain/notifications';
import { NOTIFICATION_STOPS_PER_MESSAGE } from '../../functions/models/channels';
import { createTestAccount } from '../support/accounts';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { type OutboxMessage, readOutbox } from '../support/outbox';
import { exampleRoute, importRoute } from '../support/routes';
import { waitUntil } from '../support/webhook-receiver';

/**
 * Customer messages end to end through the local outbox (docs/api.md, Customer notifications): a driver's
 * start, visit and failure reach the stops' recipients by SMS and email in their locale's template (else the
 * DC's language's, else English), never during the DC's quiet hours, and once per trigger and stop.
 */

const fx = useTestApi('customer-messages', { streams: true });
let acme: TestAccount;
const tokens: Record<string, string> = {};

const PHONE = '+14155550123';
const EMAIL = 'dana.customer@example.com';
const OTHER_EMAIL = 'lou.customer@example.com';
const FR_CA_EMAIL = 'claude.customer@example.com';
const IT_EMAIL = 'gio.customer@example.com';
const HOUR = 3_600_000;
/** A sent message's status: SENT, or DELIVERED once the outbox's delivery event came back. */
const SENT = expect.stringMatching(/^(SENT|DELIVERED)$/);
const MINUTE = 60_000;

const outbox = () => readOutbox(fx.api.url);

/**
 * The message records of a route's stop once none is QUEUED: the worker records a message, sends it, then
 * marks it SENT, so the outbox can hold a message whose record is not marked yet.
 */
function sentRecords(routeId: string, sequence: number): Promise<NotificationRecord[]> {
  return waitUntil(`the messages of ${routeId}'s stop ${sequence} marked sent`, async () => {
    const records = await listNotifications(acme.accountId, routeId, sequence);
    return records.some((record) => record.status === 'QUEUED') ? undefined : records;
  });
}

/** The outbox's messages to `to` once there are `count` of them (polled: the event path is asynchronous). */
async function messagesTo(to: string, count: number, timeoutMs = 20_000): Promise<OutboxMessage[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await outbox()).filter((message) => message.to === to);
    if (found.length >= count) return found;
    const logs = fx.api.logs
      .map((log) => log.line)
      .filter((line) => /"level":"(WARN|ERROR)"/.test(line))
      .slice(-3)
      .map((line) => line.slice(0, 600))
      .join('\n');
    expect(Date.now(), `${count} messages to ${to}; ${found.length} so far\n${logs}`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `HH:MM` in UTC, `hours` from now. */
const utcClock = (hours: number) => new Date(Date.now() + hours * HOUR).toISOString().slice(11, 16);

async function createDriver(driverId: string, dcId: string) {
  tokens[driverId] = await fx.createDriver(acme.key, dcId, driverId, 'Ana María Ruiz');
}

function routeOf(id: string, driverId: string) {
  const route = exampleRoute(id, { waypoints: 3, driverId, startTime: Date.now() + HOUR });
  const [first, second] = route.waypoints as Record<string, unknown>[];
  (first as Record<string, unknown>).recipient = { phone: PHONE, email: EMAIL, locale: 'de-AT' };
  (second as Record<string, unknown>).recipient = { email: OTHER_EMAIL, locale: 'fr' };
  return route;
}

/**
 * A route of dc-3 with no time windows but one: its first stop has no recipient, its second one in fr-CA,
 * its third one in it, whose window ended before the route starts (every ETA of it is past the window).
 */
function lateRoute() {
  const route = exampleRoute('cm-3', { waypoints: 3, driverId: 'd-3', startTime: Date.now() });
  const waypoints = route.waypoints as Record<string, unknown>[];
  for (const waypoint of waypoints) delete waypoint.time_windows;
  Object.assign(waypoints[1] as object, { recipient: { email: FR_CA_EMAIL, locale: 'fr-CA' } });
  Object.assign(waypoints[2] as object, {
    recipient: { email: IT_EMAIL, locale: 'it' },
    time_windows: [{ start: Date.now() - 3 * HOUR, end: Date.now() - 2 * HOUR }],
  });
  return route;
}
const lateBody = lateRoute();
const locationOf = (waypoint: number) => (lateBody.waypoints[waypoint] as { location: LatLng }).location;

/** The place `minutes` of driving due south of `point` in the ETAs' travel model (along a meridian: exact). */
function southOf(point: LatLng, minutes: number): LatLng {
  const km = ((minutes / 60) * DEFAULT_SPEED_KMH) / ROAD_FACTOR;
  const place = { latitude: point.latitude - (km / 6371.0088) * (180 / Math.PI), longitude: point.longitude };
  expect(travelMillis(point, place, DEFAULT_SPEED_KMH) / MINUTE).toBeCloseTo(minutes, 2);
  return place;
}

const settings = (dcId: string, body: unknown) =>
  fx.as(acme.key, 'PUT', `/dcs/${dcId}/notification-settings`, body);

beforeAll(async () => {
  acme = await createTestAccount('Acme', [
    { dcId: 'dc-1', name: 'Acme North' },
    { dcId: 'dc-2', timeZone: 'UTC' },
    { dcId: 'dc-3', name: 'Acme Sud', timeZone: 'UTC' },
  ]);
  await createDriver('d-1', 'dc-1');
  await createDriver('d-2', 'dc-2');
  await createDriver('d-3', 'dc-3');
  expect(
    (
      await settings('dc-1', {
        triggers: ['ROUTE_STARTED', 'DELIVERED', 'FAILED'],
        channels: ['SMS', 'EMAIL'],
        templates: [
          {
            trigger: 'ROUTE_STARTED',
            channel: 'SMS',
            locale: 'de',
            body: '{{dc_name}}: Ihre Lieferung kommt {{eta_window}}. {{tracking_link}}',
          },
        ],
      })
    ).status,
  ).toBe(200);
  // Quiet from an hour ago to an hour from now, in the DC's zone (UTC): whatever the time the test runs at.
  expect(
    (
      await settings('dc-2', {
        triggers: ['ROUTE_STARTED'],
        quiet_hours: { start: utcClock(-1), end: utcClock(1) },
      })
    ).status,
  ).toBe(200);
  // Templates of its own for French and English only, of ROUTE_STARTED emails: LATE takes the default.
  const own = (locale: string, subject: string) => ({
    trigger: 'ROUTE_STARTED',
    channel: 'EMAIL',
    locale,
    subject,
    body: '{{stop_name}}: {{eta_window}}. {{tracking_link}}',
  });
  expect(
    (
      await settings('dc-3', {
        triggers: ['ROUTE_STARTED', 'LATE'],
        channels: ['EMAIL'],
        templates: [own('fr', 'Votre livraison de {{dc_name}}'), own('en', 'Acme Sud delivers today')],
      })
    ).status,
  ).toBe(200);
}, 60_000);

describe('customer messages', { timeout: 90_000 }, () => {
  it('tells each recipient of a started route, in their locale’s template, with the stop’s tracking link', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', routeOf('cm-1', 'd-1'));
    const started = await fx.as(tokens['d-1'] as string, 'POST', '/driver/routes/cm-1/start', {
      timestamp: Date.now(),
    });
    expect(started.status, started.text).toBe(200);

    // de-AT takes the DC's de template; its email, which the DC has no de template of, the English default.
    const [sms] = await messagesTo(PHONE, 1);
    expect(sms?.channel).toBe('SMS');
    expect(sms?.body).toMatch(
      /^Acme North: Ihre Lieferung kommt \d\d:\d\d-\d\d:\d\d\. http:\/\/127\.0\.0\.1:\d+\/track\/[\w-]{22}$/,
    );
    const [email] = await messagesTo(EMAIL, 1);
    expect(email?.subject).toBe('Your delivery from Acme North is on its way');
    const link = /(http:\/\/\S+\/track\/[\w-]{22})/.exec(email?.body ?? '')?.[1];
    expect(link).toBeDefined();
    expect(sms?.body).toContain(link);
    // RFC 8058: one-click unsubscribe on the tracking host (unsubscribe.test.ts follows the link).
    expect(email?.headers).toEqual({
      'List-Unsubscribe': expect.stringMatching(new RegExp(`^<${link}/unsubscribe/[\\w-]{22}>$`)),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(sms?.body).not.toMatch(/unsubscribe/i);
    // fr: no template of the DC, nor of French: English.
    const [other] = await messagesTo(OTHER_EMAIL, 1);
    expect(other?.subject).toBe('Your delivery from Acme North is on its way');

    // The third stop has no recipient; each message is recorded SENT (DELIVERED once the outbox's delivery
    // event came back: message-outcomes.test.ts) with its segments (SMS).
    const records = await sentRecords('cm-1', 0);
    expect(records.map((r) => [r.trigger, r.channel, r.status, r.locale, r.to])).toEqual(
      expect.arrayContaining([
        ['ROUTE_STARTED', 'SMS', SENT, 'de', '+1415•••0123'],
        ['ROUTE_STARTED', 'EMAIL', SENT, 'en', 'd•••@example.com'],
      ]),
    );
    expect(records.find((r) => r.channel === 'SMS')?.segments).toBe(1);
    expect(records.every((r) => r.providerMessageId?.startsWith('local-'))).toBe(true);
  });

  it('tells of a delivery and of a failure with its reason', async () => {
    const visit = (waypoint: number, body: Record<string, unknown>) =>
      fx.as(tokens['d-1'] as string, 'POST', `/driver/routes/cm-1/waypoints/cm-1-wp-${waypoint}/attempts`, {
        id: `cm-1-visit-${waypoint}`,
        timestamp: Date.now(),
        ...body,
      });
    expect((await visit(0, { status: 'SUCCESSFUL' })).status).toBe(200);
    const delivered = await messagesTo(EMAIL, 2);
    expect(delivered[1]?.subject).toBe('Delivered: your delivery from Acme North');
    const failed = await visit(1, {
      status: 'FAILED',
      reason: { code: 'CLOSED', message: 'the shop was closed' },
    });
    expect(failed.status, failed.text).toBe(200);
    const [, failure] = await messagesTo(OTHER_EMAIL, 2);
    expect(failure?.body).toContain('We could not deliver to');
    expect(failure?.body).toContain(': the shop was closed.');
  });

  it('lists a waypoint’s messages with status and times; another account’s reads are refused', async () => {
    const path = '/dcs/dc-1/routes/cm-1/waypoints/cm-1-wp-0/notifications';
    const listed = expectSuccess(await fx.as(acme.key, 'GET', path), routes.listWaypointNotifications) as {
      notifications: Record<string, unknown>[];
    };
    expect(listed.notifications.map((n) => [n.trigger, n.channel, n.status])).toEqual(
      expect.arrayContaining([
        ['ROUTE_STARTED', 'SMS', SENT],
        ['ROUTE_STARTED', 'EMAIL', SENT],
        ['DELIVERED', 'EMAIL', SENT],
      ]),
    );
    for (const n of listed.notifications) {
      expect(n.sent_at).toBeGreaterThanOrEqual(n.created_at as number);
      expect(JSON.stringify(n)).not.toContain('5550123');
    }
    expectError(
      await fx.as(acme.key, 'GET', '/dcs/dc-1/routes/cm-1/waypoints/nowhere/notifications'),
      404,
      1003,
    );
    const globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
    expectError(await fx.as(globex.key, 'GET', path), 404, 3003);
    expectError(await fx.as(globex.key, 'GET', path.replace('/dcs/dc-1/', '/dcs/dc-2/')), 403, 1002);
  });

  it('drops a message due in the DC’s quiet hours, recorded SUPPRESSED', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-2', routeOf('cm-2', 'd-2'));
    const before = (await outbox()).length;
    const started = await fx.as(tokens['d-2'] as string, 'POST', '/driver/routes/cm-2/start', {
      timestamp: Date.now(),
    });
    expect(started.status, started.text).toBe(200);
    const deadline = Date.now() + 30_000;
    let records = await listNotifications(acme.accountId, 'cm-2', 0);
    while (records.length < 2) {
      expect(Date.now(), 'the quiet hours records').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
      records = await listNotifications(acme.accountId, 'cm-2', 0);
    }
    expect(records.map((r) => [r.status, r.statusReason])).toEqual([
      ['SUPPRESSED', 'quiet_hours'],
      ['SUPPRESSED', 'quiet_hours'],
    ]);
    expect((await outbox()).slice(before).filter((m) => m.to === PHONE || m.to === EMAIL)).toEqual([]);
  });

  it('tells every stop of a route larger than one run takes on (queued again in parts), each once', async () => {
    const stops = NOTIFICATION_STOPS_PER_MESSAGE * 2 + 3;
    await createDriver('d-big', 'dc-1');
    const route = exampleRoute('cm-big', {
      waypoints: stops,
      driverId: 'd-big',
      startTime: Date.now() + HOUR,
    });
    route.waypoints.forEach((waypoint, index) => {
      (waypoint as Record<string, unknown>).recipient = { email: `stop-${index}@big.example.com` };
    });
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    const started = await fx.as(tokens['d-big'] as string, 'POST', '/driver/routes/cm-big/start', {
      timestamp: Date.now(),
    });
    expect(started.status, started.text).toBe(200);
    const deadline = Date.now() + 60_000;
    let told: string[] = [];
    while (told.length < stops) {
      expect(Date.now(), `${stops} stops told; ${told.length} so far`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 250));
      told = (await outbox()).map((m) => m.to).filter((to) => to.endsWith('@big.example.com'));
    }
    expect(new Set(told).size).toBe(stops);
    expect(told).toHaveLength(stops);
  });

  it('sends a message a run recorded QUEUED and never sent, once that run is long over; a newer one it leaves', async () => {
    const record = {
      accountId: acme.accountId,
      routeId: 'cm-reclaim',
      waypointId: 'cm-reclaim-wp-0',
      waypointSequence: 0,
      eventId: 'evt_reclaim',
      trigger: 'ROUTE_STARTED',
      channel: 'EMAIL',
      locale: 'en',
      to: 'd•••@example.com',
    } as const;
    const now = Date.now();
    const stale = {
      ...record,
      notificationId: 'stale',
      status: 'QUEUED' as const,
      createdAt: now - 10 * 60_000,
    };
    const fresh = { ...record, notificationId: 'fresh', status: 'QUEUED' as const, createdAt: now - 1_000 };
    const sent = { ...record, notificationId: 'sent', status: 'SENT' as const, createdAt: now - 10 * 60_000 };
    for (const one of [stale, fresh, SENT]) expect(await insertNotification(one)).toBe('written');
    const staleBefore = now - 2 * 60_000;
    expect(await reclaimQueuedNotification(stale, now, staleBefore)).toBe(true);
    // Claimed now: a second run finds it taken until that claim is stale in turn.
    expect(await reclaimQueuedNotification(stale, now, staleBefore)).toBe(false);
    expect(await reclaimQueuedNotification(stale, now + 5 * 60_000, now + 1)).toBe(true);
    expect(await reclaimQueuedNotification(fresh, now, staleBefore)).toBe(false);
    expect(await reclaimQueuedNotification(sent, now, staleBefore)).toBe(false);
  });
});

describe('customer messages: locales and LATE', { timeout: 120_000 }, () => {
  it('takes the DC’s template of the recipient’s language (fr-CA: fr), else the DC’s English one', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-3', lateBody);
    const started = await fx.as(tokens['d-3'] as string, 'POST', '/driver/routes/cm-3/start', {
      timestamp: Date.now(),
    });
    expect(started.status, started.text).toBe(200);
    const [french] = await messagesTo(FR_CA_EMAIL, 1, 60_000);
    expect(french?.subject).toBe('Votre livraison de Acme Sud');
    // The template's line, then the footer with the unsubscribe link every email carries.
    expect(french?.body.split('\n')[0]).toMatch(
      /^Customer 1: \d\d:\d\d-\d\d:\d\d\. http:\/\/\S+\/track\/[\w-]{22}$/,
    );
    // it: the DC has no Italian template, but an English one of its own.
    const [italian] = await messagesTo(IT_EMAIL, 1, 60_000);
    expect(italian?.subject).toBe('Acme Sud delivers today');
    const records = [...(await sentRecords('cm-3', 1)), ...(await sentRecords('cm-3', 2))];
    expect(records.map((r) => [r.waypointId, r.trigger, r.status, r.locale])).toEqual([
      ['cm-3-wp-1', 'ROUTE_STARTED', SENT, 'fr'],
      ['cm-3-wp-2', 'ROUTE_STARTED', SENT, 'en'],
    ]);
  });

  it('sends one LATE message when an ETA passes the stop’s window or moves 15 minutes later, none again within 30 minutes', async () => {
    const token = tokens['d-3'] as string;
    const startedEta = async (sequence: number) =>
      (await listNotifications(acme.accountId, 'cm-3', sequence)).find((r) => r.trigger === 'ROUTE_STARTED')
        ?.eta as number;
    const [toldFirst, toldSecond] = [await startedEta(1), await startedEta(2)];

    // A ping 9 minutes' drive further from the first stop than the warehouse: every ETA moves about 9 minutes
    // later. The third stop (past its window) is told it runs late; the second one, which moved less than 15
    // minutes, is not (its message would come first: the worker takes an event's stops in route order).
    const warehouse = lateBody.start_warehouse.location;
    const away = southOf(
      locationOf(0),
      travelMillis(warehouse, locationOf(0), DEFAULT_SPEED_KMH) / MINUTE + 9,
    );
    const ping = await fx.as(token, 'POST', '/driver/location', { timestamp: Date.now(), location: away });
    expect(ping.status, ping.text).toBe(200);
    const [, late] = await messagesTo(IT_EMAIL, 2, 60_000);
    expect(late?.subject).toBe('Your delivery from Acme Sud runs late');
    expect(late?.body).toContain('runs late; it is now expected');
    const lateRecord = (await sentRecords('cm-3', 2)).find((r) => r.trigger === 'LATE');
    expect(lateRecord?.status).toEqual(SENT);
    const moved = (lateRecord?.eta as number) - toldSecond;
    expect(moved).toBeGreaterThanOrEqual(9 * MINUTE);
    expect(moved).toBeLessThan(LATE_MOVE_MS);
    expect((await outbox()).filter((m) => m.to === FR_CA_EMAIL)).toHaveLength(1);

    // The first stop visited from 40 minutes' drive south of the second: its ETA moves more than 15 minutes
    // past what its message told, and it is told; the third stop's moves on too, but its LATE message went
    // within 30 minutes: neither sent nor recorded, only logged.
    const visit = await fx.as(token, 'POST', '/driver/routes/cm-3/waypoints/cm-3-wp-0/attempts', {
      id: 'cm-3-visit-0',
      timestamp: Date.now(),
      status: 'SUCCESSFUL',
      location: southOf(locationOf(1), 40),
    });
    expect(visit.status, visit.text).toBe(200);
    const [, secondLate] = await messagesTo(FR_CA_EMAIL, 2, 60_000);
    // fr-CA: the DC has no LATE template of French or English: the English default.
    expect(secondLate?.subject).toBe('Your delivery from Acme Sud runs late');
    const secondRecords = await sentRecords('cm-3', 1);
    expect(secondRecords.map((r) => [r.trigger, r.status])).toEqual([
      ['ROUTE_STARTED', SENT],
      ['LATE', SENT],
    ]);
    expect((secondRecords[1]?.eta as number) - toldFirst).toBeGreaterThanOrEqual(LATE_MOVE_MS);

    const deadline = Date.now() + 30_000;
    const throttled = () =>
      fx.api.logs.some(
        ({ line }) =>
          line.includes('customer message not sent') &&
          line.includes('"outcome":"throttled"') &&
          line.includes('"route_id":"cm-3"'),
      );
    while (!throttled()) {
      expect(Date.now(), 'the throttled LATE message’s log line').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await outbox()).filter((m) => m.to === IT_EMAIL)).toHaveLength(2);
    const listed = expectSuccess(
      await fx.as(acme.key, 'GET', '/dcs/dc-3/routes/cm-3/waypoints/cm-3-wp-2/notifications'),
      routes.listWaypointNotifications,
    ) as { notifications: Record<string, unknown>[] };
    expect(listed.notifications.map((n) => [n.trigger, n.status])).toEqual([
      ['ROUTE_STARTED', SENT],
      ['LATE', SENT],
    ]);
  });
});
