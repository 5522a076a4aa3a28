import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as events from '../../functions/api/events/index';
import { inParallel } from '../../functions/shared/parallel';
import { expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { exampleRoute, importRoute } from '../support/routes';
import { scanItems } from '../support/table-scans';
import { eventIdOf, messagesHeld, waitUntil } from '../support/webhook-receiver';
import { MINUTE, useWebhookApi } from '../support/webhooks';

/**
 * One busy account: 100 drivers start, visit and finish their routes at once, every change writing its event,
 * while two readers poll GET /events after their cursors. Every event reaches the webhook at least once and the
 * feed exactly once, each reader sees every event exactly once in an order it resumed from, each route's
 * sequences are gap-free, and no message reaches a dead-letter queue. The whole pipeline runs: table stream ->
 * event pipe -> events queue -> fan-out -> deliveries, and table stream -> feed pipe -> FIFO feed queue -> feed.
 */

const hooks = useWebhookApi('event-feed-load', { streams: true, pollerConcurrency: 4 });

const DRIVERS = 100;
/**
 * Drivers whose requests are in flight at once: twice the 3 environments the local API runs of a function, so
 * each environment has the next request waiting. More wait longer for one: with 20, a start waited more than
 * API Gateway's 29 s in a whole run on two cores (504). The file alone took 80 s with 6, 67 s with 20.
 */
const DRIVERS_IN_FLIGHT = 6;
const WAYPOINTS = 1;
const BASE = Math.floor(Date.now() / 1000) * 1000 - 180 * MINUTE;
const at = (minutes: number) => BASE + minutes * MINUTE;

type FeedEvent = {
  event: string;
  event_id: string;
  route_id: string | null;
  sequence: number | null;
  cursor: string;
};
type FeedPage = { events: FeedEvent[]; next_cursor: string | null; has_more: boolean };

/** The account's event items, as written (straight from the table). */
async function eventsWritten(
  accountId: string,
): Promise<{ eventId: string; routeId: string; sequence: number }[]> {
  const items = await scanItems({ entity: 'EVENT', account_id: accountId }, hooks.fx.api.tableName);
  return items.map((item) => ({ eventId: item.event_id, routeId: item.route_id, sequence: item.sequence }));
}

/**
 * A client polling the feed as an ERP does: a page after its cursor, the next at once while `has_more`, else
 * after a pause; it keeps every event it was given, in order.
 */
function feedReader(key: string) {
  const seen: FeedEvent[] = [];
  let after: string | null = null;
  let stopped = false;
  let failure: unknown;
  const running = (async () => {
    while (!stopped) {
      const query = new URLSearchParams({ limit: '37', ...(after ? { after } : {}) });
      const response = await hooks.request('GET', `/events?${query}`, { key });
      const page = expectSuccess(response, events.listEvents) as FeedPage;
      seen.push(...page.events);
      after = page.next_cursor;
      if (!page.has_more) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })().catch((error: unknown) => {
    failure = error;
  });
  return {
    seen,
    /** Stops polling; throws what made it stop early, if anything did. */
    stop: async () => {
      stopped = true;
      await running;
      if (failure) throw failure;
    },
    get failed() {
      return failure !== undefined;
    },
  };
}

describe('one account, 100 drivers at once', () => {
  const routes = Array.from({ length: DRIVERS }, (_, index) => {
    const driverId = `load-driver-${index}`;
    return {
      driverId,
      token: strongToken(`load-driver-login-token-${String(index).padStart(3, '0')}`),
      route: exampleRoute(`load-${index}`, { waypoints: WAYPOINTS, driverId, startTime: BASE }),
    };
  });
  let written: Awaited<ReturnType<typeof eventsWritten>> = [];
  let readers: ReturnType<typeof feedReader>[] = [];
  let receiver: Awaited<ReturnType<typeof hooks.receiver>>;

  beforeAll(async () => {
    const acme = hooks.accounts.acme;
    receiver = await hooks.receiver();
    await hooks.createWebhook(receiver.url);
    await inParallel(routes, 10, async ({ driverId, token, route }) => {
      const created = await hooks.request('POST', '/dcs/dc-1/drivers', {
        key: acme.key,
        body: { driver_id: driverId, driver_name: `Driver ${driverId}`, login_token: token },
      });
      expect(created.status, created.text).toBe(200);
      await importRoute(hooks.fx.api.url, acme.key, 'dc-1', route);
    });
    readers = [feedReader(acme.key), feedReader(acme.key)];
    // The drivers at once, DRIVERS_IN_FLIGHT at a time: start, visit each stop, finish.
    await inParallel(routes, DRIVERS_IN_FLIGHT, async ({ token, route }) => {
      const asDriver = (path: string, body: unknown) =>
        hooks.request('POST', path, { key: token, body }).then((response) => {
          expect(response.status, response.text).toBe(200);
        });
      await asDriver(`/driver/routes/${route.id}/start`, { timestamp: at(60) });
      for (const [index, waypoint] of route.waypoints.entries()) {
        await asDriver(`/driver/routes/${route.id}/waypoints/${waypoint.id}/attempts`, {
          id: `load-visit-${route.id}-${index}`,
          timestamp: at(70 + index),
          status: 'SUCCESSFUL',
          location: waypoint.location,
        });
      }
      await asDriver(`/driver/routes/${route.id}/finish`, { timestamp: at(120) });
    });
    written = await eventsWritten(acme.accountId);
    const ids = new Set(written.map((event) => event.eventId));
    // Within seconds on a quiet machine; a generous deadline for a busy one.
    await waitUntil(
      `the ${ids.size} events at the webhook and with both readers`,
      () => {
        const delivered = new Set(receiver.deliveries.map(eventIdOf));
        if (readers.some((reader) => reader.failed)) return true;
        return [...ids].every((id) => delivered.has(id)) &&
          readers.every((reader) => reader.seen.length >= ids.size)
          ? true
          : undefined;
      },
      240_000,
    );
    await Promise.all(readers.map((reader) => reader.stop()));
  }, 900_000);

  afterAll(async () => {
    // A reader left polling after a failed setup would call a closed API.
    await Promise.allSettled(readers.map((reader) => reader.stop()));
  });

  it('wrote the events of every route: created, started, each visit, finished', () => {
    for (const { route } of routes) {
      expect(written.filter((event) => event.routeId === route.id).length).toBeGreaterThanOrEqual(
        3 + WAYPOINTS,
      );
    }
  });

  it('delivers every event to the webhook at least once', () => {
    const delivered = new Set(receiver.deliveries.map(eventIdOf));
    expect(written.filter((event) => !delivered.has(event.eventId))).toEqual([]);
  });

  it('gives every reader every event exactly once, resuming after its cursors', () => {
    const ids = written.map((event) => event.eventId).sort();
    for (const reader of readers) {
      expect(reader.seen.map((event) => event.event_id).sort()).toEqual(ids);
    }
    // Both read the same order: the feed's.
    expect(readers[0]?.seen.map((event) => event.event_id)).toEqual(readers[1]?.seen.map((e) => e.event_id));
  });

  it('numbers each route’s events 1, 2, 3 ... with no gaps, in the feed as written', () => {
    const feed = readers[0]?.seen ?? [];
    for (const { route } of routes) {
      const sequences = feed
        .filter((event) => event.route_id === route.id)
        .map((event) => event.sequence as number)
        .sort((a, b) => a - b);
      expect(sequences).toEqual(sequences.map((_, index) => index + 1));
    }
  });

  it('leaves no message in any dead-letter queue', async () => {
    for (const [name, url] of Object.entries(hooks.fx.api.resources.dlqUrls))
      expect(await messagesHeld(url), `${name} DLQ`).toBe(0);
    for (const pipe of hooks.fx.api.cloud.deployment.pipes) {
      const dlq = hooks.fx.api.cloud.deployment.queues.find(
        (q) => q.arn === pipe.streamSource?.deadLetterArn,
      );
      expect(await messagesHeld(dlq?.url ?? ''), `${pipe.name} DLQ`).toBe(0);
    }
  });
});
