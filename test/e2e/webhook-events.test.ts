import { beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import * as eventFeed from '../../functions/api/events/index';
import * as routes from '../../functions/api/routes/index';
import { writeTransaction } from '../../functions/data/client';
import { putEventItem } from '../../functions/data/events';
import {
  eventSequenceRaced,
  lastEventSequence,
  takeEventSequenceItem,
} from '../../functions/data/route-event-sequences';
import { acceptImport } from '../../functions/domain/route-import';
import type { EventType } from '../../functions/models/event-catalog';
import { ImportRoute } from '../../functions/models/import-model';
import { at, BASE, startAndVisitAllAtOnce } from '../support/driver-app';
import { type ApiResponse, expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { exampleRoute, importRoute, trackingUrlUnder, waitForImport } from '../support/routes';
import { createDriverWithToken, recordVisit, routeEventItems } from '../support/webhook-events';
import {
  eventIdOf,
  eventTypeOf,
  type ReceivedDelivery,
  type WebhookReceiver,
  waitForQueuesDrained,
  waitUntil,
} from '../support/webhook-receiver';
import {
  ALL_EVENTS,
  arrived,
  type CreatedWebhook,
  expectHookTime,
  expectSigned,
  useWebhookApi,
} from '../support/webhooks';

/**
 * Every event of spec §6 and DESIGN §4 caused through the API and received, signed, by real HTTP receivers
 * on 127.0.0.1 through the whole pipeline (table stream -> events queue -> fan-out -> deliveries queue ->
 * signed POST).
 */

const hooks = useWebhookApi('webhook-events', { streams: true });

const EXPECTED_EVENT_ID = expect.stringMatching(/\S/);

/** The event items written for a route (read straight from the table), as "<type> <event id>", sorted. */
async function eventItemsOf(accountId: string, routeId: string): Promise<string[]> {
  const items = await routeEventItems(hooks.fx.api.tableName, accountId, routeId);
  return items.map((item) => `${item.event_type} ${item.event_id}`).sort();
}

/** Waits until every event item of the route so far has reached the hooks.receiver (by event id). */
async function waitForRouteEventsDelivered(to: WebhookReceiver, routeId: string) {
  const written = await eventItemsOf(hooks.accounts.acme.accountId, routeId);
  await waitUntil(`the ${written.length} events of ${routeId} at the hooks.receiver`, () => {
    const received = new Set(
      to.deliveries.map((delivery) => `${eventTypeOf(delivery)} ${eventIdOf(delivery)}`),
    );
    return written.every((event) => received.has(event)) ? true : undefined;
  });
}

// ---------------------------------------------------------------------------------------------------
// 2. Events through the pipeline
// ---------------------------------------------------------------------------------------------------

describe('route events reach the subscribed receivers, signed', () => {
  const driverId = 'hook-driver';
  const token = strongToken('hook-driver-login-token-01');
  const route = { ...exampleRoute('hook-1', { waypoints: 2, driverId, startTime: BASE }) };
  const wp0 = route.waypoints[0] as (typeof route.waypoints)[number];

  let all: { receiver: WebhookReceiver; webhook: CreatedWebhook };
  let dc2: { receiver: WebhookReceiver; webhook: CreatedWebhook };
  let startedOnly: { receiver: WebhookReceiver; webhook: CreatedWebhook };
  let other: { receiver: WebhookReceiver; webhook: CreatedWebhook };
  let paused: { receiver: WebhookReceiver; webhook: CreatedWebhook };
  let deleted: { receiver: WebhookReceiver; webhook: CreatedWebhook };
  /** Before the last route action: what the paused webhook may get starts here. */
  let resumedAt = 0;
  let dc2RouteId = '';
  let globexEventId = '';

  async function subscribed(events = ALL_EVENTS, dcIds = ['dc-1'], key = hooks.accounts.acme.key) {
    const to = await hooks.receiver();
    return { receiver: to, webhook: await hooks.createWebhook(to.url, events, dcIds, key) };
  }

  const asDriver = (method: string, path: string, body?: unknown) =>
    hooks.request(method, path, { key: token, body });

  /** The delivery is the event of the dc-1 route with these fields, at its time, signed for the webhook of all types. */
  function expectRouteEvent(
    delivery: ReceivedDelivery,
    type: EventType,
    actionStartedAt: number,
    fields: Record<string, unknown>,
    routeId = route.id,
  ) {
    expect(delivery.json).toEqual({
      event: type,
      hook_timestamp_millis: expect.any(Number),
      dc_id: 'dc-1',
      route_id: routeId,
      event_id: EXPECTED_EVENT_ID,
      sequence: expect.any(Number),
      ...fields,
    });
    expectHookTime(delivery, actionStartedAt);
    expectSigned(delivery, all.webhook, type);
  }

  beforeAll(async () => {
    all = await subscribed();
    dc2 = await subscribed(ALL_EVENTS, ['dc-2']);
    startedOnly = await subscribed(['ROUTE_STARTED']);
    other = await subscribed(ALL_EVENTS, ['dc-1'], hooks.accounts.globex.key);
    paused = await subscribed();
    deleted = await subscribed();
    expect((await hooks.setEnabled(paused.webhook.id, false)).enabled).toBe(false);
    await hooks.deleteWebhook(deleted.webhook.id);
    await createDriverWithToken(hooks, driverId, 'Hook Driver', token);
  });

  it('ROUTE_CREATED after a route import', async () => {
    const before = Date.now();
    await importRoute(hooks.fx.api.url, hooks.accounts.acme.key, 'dc-1', route);
    const delivery = await arrived(all.receiver, 'ROUTE_CREATED', route.id);
    expectRouteEvent(delivery, 'ROUTE_CREATED', before, {
      sequence: 1,
      route: expect.objectContaining({ id: route.id }),
    });
  });

  it('ROUTE_STARTED and ROUTE_ETAS_CHANGED when the driver starts the route, each with the waypoints’ tracking links', async () => {
    // The links the waypoint reads answer: the ones an ERP texts its customers.
    const read = await hooks.asAccount('GET', `/dcs/dc-1/routes/${route.id}/waypoints`);
    const { waypoints } = expectSuccess(read, routes.listWaypoints) as {
      waypoints: { id: string; tracking_url: string }[];
    };
    expect(waypoints.map((waypoint) => waypoint.tracking_url)).toEqual([
      trackingUrlUnder(hooks.fx.api.url),
      trackingUrlUnder(hooks.fx.api.url),
    ]);
    const before = Date.now();
    const response = await asDriver('POST', `/driver/routes/${route.id}/start`, { timestamp: at(70) });
    expect(response.status, response.text).toBe(200);
    const started = await arrived(all.receiver, 'ROUTE_STARTED', route.id);
    expectRouteEvent(started, 'ROUTE_STARTED', before, {
      sequence: 2,
      driver_id: driverId,
      started_timestamp: at(70),
      waypoints: waypoints.map((waypoint) => ({
        waypoint_id: waypoint.id,
        tracking_url: waypoint.tracking_url,
      })),
    });

    // Started 70 minutes after the planned start: every ETA moves.
    const etas = await arrived(all.receiver, 'ROUTE_ETAS_CHANGED', route.id);
    for (const eta of etas.json.etas as { eta_timestamp: number }[]) {
      expect(eta.eta_timestamp).toBeGreaterThanOrEqual(at(70));
    }
    expectRouteEvent(etas, 'ROUTE_ETAS_CHANGED', before, {
      sequence: 3,
      etas: waypoints.map((waypoint) => ({
        waypoint_id: waypoint.id,
        eta_timestamp: expect.any(Number),
        tracking_url: waypoint.tracking_url,
      })),
    });
    // The key the links are made with stays inside the service.
    for (const delivery of [started, etas]) expect(delivery.body).not.toContain('tracking_links');
  });

  it('WAYPOINT_STATUS_CHANGED after an attempt', async () => {
    const before = Date.now();
    await recordVisit(asDriver, route.id, wp0, 'hook-visit-0', at(80));
    const delivery = await arrived(all.receiver, 'WAYPOINT_STATUS_CHANGED', route.id);
    expectRouteEvent(delivery, 'WAYPOINT_STATUS_CHANGED', before, {
      // After WAYPOINT_APPROACHING of the first stop (3 is the start's ETAs): its ETA is within 10 minutes.
      sequence: 5,
      waypoint_id: wp0.id,
      status: 'SUCCESSFUL',
      attempt_id: 'hook-visit-0',
      timestamp: at(80),
      proof_ids: [],
      signer_name: null,
    });
  });

  it('ROUTE_UPDATED when a waypoint not yet visited is cancelled', async () => {
    const wp1 = route.waypoints[1] as (typeof route.waypoints)[number];
    const before = Date.now();
    const response = await hooks.asAccount('DELETE', `/dcs/dc-1/routes/${route.id}/waypoints/${wp1.id}`);
    const { route: changed } = expectSuccess(response, routes.cancelWaypoint) as {
      route: { version: number };
    };
    const delivery = await arrived(all.receiver, 'ROUTE_UPDATED', route.id);
    const removed = (ids: string[]) => ({ added: [], removed: ids, changed: [] });
    expectRouteEvent(delivery, 'ROUTE_UPDATED', before, {
      version: changed.version,
      changes: {
        waypoints: removed([wp1.id]),
        invoices: removed(wp1.invoices.map((invoice) => invoice.id)),
        items: removed(wp1.invoices.flatMap((invoice) => invoice.items.map((item) => item.id))),
      },
      order_changed: false,
    });
  });

  it('ROUTE_IMPORT_FAILED when a revision is refused, as an event of its route: the route’s next sequence, in the delivery and the feed alike', async () => {
    const updated = await arrived(all.receiver, 'ROUTE_UPDATED', route.id);
    const other = await hooks.asAccount('POST', '/dcs/dc-1/drivers', {
      driver_id: 'hook-driver-2',
      driver_name: 'Other Driver',
    });
    expectSuccess(other, drivers.createDriver);
    // The started route keeps its driver: the worker refuses the revision with 3011.
    const before = Date.now();
    const revised = await hooks.asAccount('PUT', `/dcs/dc-1/routes/${route.id}/revision`, {
      route: { ...route, waypoints: [wp0], driver_id: 'hook-driver-2' },
    });
    const { txid } = expectSuccess(revised, routes.reviseRoute, 202) as { txid: string };
    expectError(await waitForImport(hooks.fx.api.url, hooks.accounts.acme.key, 'dc-1', txid), 400, 3011);
    const failed = await all.receiver.waitFor(
      (delivery) => eventTypeOf(delivery) === 'ROUTE_IMPORT_FAILED' && delivery.json.txid === txid,
    );
    const [delivery] = failed as [ReceivedDelivery];
    expectRouteEvent(delivery, 'ROUTE_IMPORT_FAILED', before, {
      txid,
      error: { code: 3011, message: expect.any(String) },
    });
    expect(delivery.json.sequence).toBeGreaterThan(updated.json.sequence as number);
    // The feed carries the event item's sequence too.
    const listed = await waitUntil('the refused revision’s event in the feed', async () => {
      const feed = await hooks.request('GET', `/events?route_id=${route.id}&type=ROUTE_IMPORT_FAILED`, {
        key: hooks.accounts.acme.key,
      });
      const { events } = expectSuccess(feed, eventFeed.listEvents) as { events: Record<string, unknown>[] };
      return events.find((event) => event.event_id === delivery.json.event_id);
    });
    expect(listed).toMatchObject({ sequence: delivery.json.sequence, txid });
  });

  it('ROUTE_FINISHED when the driver finishes (and a re-enabled webhook gets it)', async () => {
    // Every event so far (the visit's ETA update included) was fanned out while the webhook was disabled.
    await waitForRouteEventsDelivered(all.receiver, route.id);
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    expect((await hooks.setEnabled(paused.webhook.id, true)).enabled).toBe(true);
    resumedAt = Date.now();
    const response = await asDriver('POST', `/driver/routes/${route.id}/finish`, { timestamp: at(120) });
    expect(response.status, response.text).toBe(200);
    const delivery = await arrived(all.receiver, 'ROUTE_FINISHED', route.id);
    expect(delivery.json).toMatchObject({
      event: 'ROUTE_FINISHED',
      hook_timestamp_millis: expect.any(Number),
      dc_id: 'dc-1',
      route_id: route.id,
      event_id: EXPECTED_EVENT_ID,
      finalized_timestamp: at(120),
    });
    expectHookTime(delivery, resumedAt);
    expectSigned(delivery, all.webhook, 'ROUTE_FINISHED');
    const resumed = await arrived(paused.receiver, 'ROUTE_FINISHED', route.id);
    expect(resumed.json).toEqual(delivery.json);
    expectSigned(resumed, paused.webhook, 'ROUTE_FINISHED');
  });

  it('ROUTE_IMPORT_FAILED when a concurrent import of the same route id loses', async () => {
    const raced = exampleRoute('hook-race', { waypoints: 1 });
    const before = Date.now();
    // Accepted at the same moment (by the operator, through the code the POST runs): both pass the check at
    // acceptance, as neither has claimed the id yet, and the worker decides. Through HTTP the first import may
    // already be done when the second POST is checked (then it answers 3005 itself, and no event is sent).
    const txids = await Promise.all(
      [raced, { ...raced, name: 'the other one' }].map((body) =>
        acceptImport(hooks.accounts.acme.accountId, 'dc-1', ImportRoute.parse(body)),
      ),
    );
    const outcomes = await Promise.all(
      txids.map((txid) => waitForImport(hooks.fx.api.url, hooks.accounts.acme.key, 'dc-1', txid)),
    );
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 400]);
    const loserTxid = txids[outcomes.findIndex((outcome) => outcome.status === 400)];
    expectError(outcomes.find((outcome) => outcome.status === 400) as ApiResponse, 400, 3005);

    const failed = await arrived(all.receiver, 'ROUTE_IMPORT_FAILED', raced.id);
    expectRouteEvent(
      failed,
      'ROUTE_IMPORT_FAILED',
      before,
      {
        // The failed import made no route: its event is in no route's sequence.
        sequence: null,
        txid: loserTxid,
        error: { code: 3005, message: expect.any(String) },
      },
      raced.id,
    );
    const created = await arrived(all.receiver, 'ROUTE_CREATED', raced.id);
    expect(created.json.event_id).not.toBe(failed.json.event_id);
  });

  it('delivered every event item of the route to the webhook of all types, each with its id', async () => {
    const written = await eventItemsOf(hooks.accounts.acme.accountId, route.id);
    expect(written.length).toBeGreaterThanOrEqual(5);
    await waitForRouteEventsDelivered(all.receiver, route.id);
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    const received = all.receiver.deliveries
      .filter((delivery) => delivery.json.route_id === route.id)
      .map((delivery) => `${eventTypeOf(delivery)} ${eventIdOf(delivery)}`);
    expect([...new Set(received)].sort()).toEqual(written);
  });

  it('numbered the route’s events 1, 2, 3 ... with no gaps, in the order they happened', async () => {
    await waitForRouteEventsDelivered(all.receiver, route.id);
    const byEventId = new Map(
      all.receiver.deliveries
        .filter((delivery) => delivery.json.route_id === route.id)
        .map((delivery) => [eventIdOf(delivery), delivery.json]),
    );
    const events = [...byEventId.values()].sort((a, b) => (a.sequence as number) - (b.sequence as number));
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
    expect(events.at(0)?.event).toBe('ROUTE_CREATED');
    expect(events.at(-1)?.event).toBe('ROUTE_FINISHED');
    const times = events.map((event) => event.hook_timestamp_millis as number);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('sends a webhook of another DC nothing of this DC, and that DC’s events', async () => {
    const dc2Route = exampleRoute('hook-dc2', { waypoints: 1 });
    dc2RouteId = dc2Route.id;
    await importRoute(hooks.fx.api.url, hooks.accounts.acme.key, 'dc-2', dc2Route);
    const delivery = await arrived(dc2.receiver, 'ROUTE_CREATED', dc2Route.id);
    expect(delivery.json).toMatchObject({ dc_id: 'dc-2', route_id: dc2Route.id });
    expectSigned(delivery, dc2.webhook, 'ROUTE_CREATED');
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    expect(dc2.receiver.deliveries.map((d) => [eventTypeOf(d), d.json.dc_id, d.json.route_id])).toEqual([
      ['ROUTE_CREATED', 'dc-2', dc2Route.id],
    ]);
    // And the dc-1 webhooks got nothing of dc-2.
    for (const to of [all, startedOnly, paused]) {
      expect(to.receiver.deliveries.filter((d) => d.json.dc_id !== 'dc-1')).toEqual([]);
    }
  });

  it('sends a webhook of one event type only that type', async () => {
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    const got = startedOnly.receiver.deliveries;
    expect(got.map((delivery) => [eventTypeOf(delivery), delivery.json.route_id])).toEqual([
      ['ROUTE_STARTED', route.id],
    ]);
    expect(got[0]?.json).toEqual((await arrived(all.receiver, 'ROUTE_STARTED', route.id)).json);
    expectSigned(got[0] as ReceivedDelivery, startedOnly.webhook, 'ROUTE_STARTED');
  });

  it('never sends another account’s webhook this account’s events, but its own', async () => {
    // Globex imports a route with the same id into its own dc-1.
    await importRoute(
      hooks.fx.api.url,
      hooks.accounts.globex.key,
      'dc-1',
      exampleRoute(route.id, { waypoints: 1 }),
    );
    const own = await arrived(other.receiver, 'ROUTE_CREATED', route.id);
    globexEventId = eventIdOf(own) as string;
    expectSigned(own, other.webhook, 'ROUTE_CREATED');
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    expect(other.receiver.deliveries.map(eventIdOf)).toEqual([globexEventId]);
    // Nor the other way round.
    expect(all.receiver.deliveries.map(eventIdOf)).not.toContain(globexEventId);
  });

  it('sends a disabled webhook nothing, and after it is enabled again only what happened since', async () => {
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    const got = paused.receiver.deliveries.map(
      (delivery) => `${eventTypeOf(delivery)} ${delivery.json.route_id}`,
    );
    // Disabled while hook-1 was imported, started and visited; enabled again before it finished and
    // before hook-race was imported.
    expect(got.sort()).toEqual([
      'ROUTE_CREATED hook-race',
      'ROUTE_FINISHED hook-1',
      'ROUTE_IMPORT_FAILED hook-race',
    ]);
    for (const delivery of paused.receiver.deliveries) {
      expect(delivery.json.hook_timestamp_millis as number).toBeGreaterThanOrEqual(resumedAt);
    }
  });

  it('sends a deleted webhook nothing', async () => {
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    expect(all.receiver.deliveries.length).toBeGreaterThan(5);
    expect(deleted.receiver.deliveries).toEqual([]);
    expect(dc2RouteId).not.toBe('');
  });

  it('logged each delivery of the webhook, newest first', async () => {
    const log = await hooks.deliveriesOf(all.webhook.id);
    const received = new Set(all.receiver.deliveries.map(eventIdOf));
    expect(log.length).toBe(all.receiver.deliveries.length);
    for (const attempt of log) {
      expect(received).toContain(attempt.event_id);
      expect(attempt).toMatchObject({ attempt: 1, status_code: 200, error: null });
    }
    const times = log.map((attempt) => attempt.timestamp);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(log.at(-1)?.event_type).toBe('ROUTE_CREATED');
  });
});

describe('the sequence of a route’s events', () => {
  const driverId = 'busy-driver';
  const token = strongToken('busy-driver-login-token-01');
  const route = exampleRoute('hook-busy', { waypoints: 4, driverId, startTime: BASE });

  const asDriver = (method: string, path: string, body?: unknown) =>
    hooks.request(method, path, { key: token, body });

  /** The route's event items as written (straight from the table): their sequences, in order. */
  async function sequencesOf(routeId: string): Promise<number[]> {
    const items = await routeEventItems(hooks.fx.api.tableName, hooks.accounts.acme.accountId, routeId);
    return items.map((item) => item.sequence as number).sort((a, b) => a - b);
  }

  it('takes the next number for each of visits recorded at once: no gap, no repeat', async () => {
    await createDriverWithToken(hooks, driverId, 'Busy Driver', token);
    await importRoute(hooks.fx.api.url, hooks.accounts.acme.key, 'dc-1', route);
    await startAndVisitAllAtOnce(asDriver, route, 'busy-visit');
    const sequences = await sequencesOf(route.id);
    // ROUTE_CREATED, ROUTE_STARTED, its ETAs, the four visits and whatever ETA changes they made.
    expect(sequences.length).toBeGreaterThanOrEqual(7);
    expect(sequences).toEqual(sequences.map((_, index) => index + 1));
  });

  it('refuses an event whose sequence another event took since it was read: no number twice', async () => {
    const accountId = hooks.accounts.acme.accountId;
    const read = await lastEventSequence(accountId, route.id);
    const wp0 = route.waypoints[0] as (typeof route.waypoints)[number];
    await recordVisit(asDriver, route.id, wp0, 'busy-visit-again', at(90));
    const now = await lastEventSequence(accountId, route.id);
    expect(now).toBeGreaterThan(read);
    // An event built from the read before the visit must lose: the visit took that number.
    const stale = [
      takeEventSequenceItem(accountId, route.id, read),
      putEventItem({
        accountId,
        dcId: 'dc-1',
        routeId: route.id,
        sequence: read + 1,
        type: 'ROUTE_FINISHED',
        details: { finalized_timestamp: at(91), driver_id: driverId },
        occurredAt: Date.now(),
      }),
    ];
    const refused = await writeTransaction(stale).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(eventSequenceRaced(refused, stale)).toBe(true);
    const sequences = await sequencesOf(route.id);
    expect(sequences).toEqual(sequences.map((_, index) => index + 1));
    expect(sequences.at(-1)).toBe(now);
  });
});
