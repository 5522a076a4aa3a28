import { beforeAll, describe, expect, it } from 'vitest';
import * as events from '../../functions/api/events/index';
import { appendEvents } from '../../functions/domain/event-feed';
import { at, BASE, startAndVisitAllAtOnce } from '../support/driver-app';
import { expectError, expectSuccess } from '../support/http';
import { strongToken } from '../support/login-tokens';
import { exampleRoute, importRoute } from '../support/routes';
import { scanItems } from '../support/table-scans';
import { eventIdOf, type WebhookReceiver, waitUntil } from '../support/webhook-receiver';
import { type CreatedWebhook, useWebhookApi } from '../support/webhooks';

/**
 * GET /events: every event of the account, appended to its feed by the feed queue's consumer after its
 * change committed, read after a cursor. Events are caused through the API and carried by the whole
 * pipeline (table stream -> feed pipe -> FIFO feed queue -> consumer).
 */

const hooks = useWebhookApi('event-feed', { streams: true });

type FeedEvent = Record<string, unknown> & {
  event: string;
  event_id: string;
  route_id: string | null;
  dc_id: string;
  sequence: number | null;
  cursor: string;
};
type FeedPage = { events: FeedEvent[]; next_cursor: string | null; has_more: boolean };

async function feedPage(key: string, query = ''): Promise<FeedPage> {
  const response = await hooks.request('GET', `/events${query}`, { key });
  return expectSuccess(response, events.listEvents) as FeedPage;
}

/** Every event of the feed from `query`, page after page (`limit` each) until a page says no more. */
async function wholeFeed(key: string, params: Record<string, string> = {}): Promise<FeedEvent[]> {
  const all: FeedEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ ...params, ...(after ? { after } : {}) });
    const page = await feedPage(key, `?${query}`);
    all.push(...page.events);
    if (!page.has_more) return all;
    after = page.next_cursor as string;
  }
}

/** The event ids written for the account (straight from the table's event items). */
async function eventIdsWritten(accountId: string): Promise<string[]> {
  const items = await scanItems({ entity: 'EVENT', account_id: accountId }, hooks.fx.api.tableName);
  return items.map((item) => item.event_id as string).sort();
}

/** Waits until the account's feed holds every event written for it so far; returns the feed. */
async function caughtUp(account: { accountId: string; key: string }): Promise<FeedEvent[]> {
  const written = await eventIdsWritten(account.accountId);
  let feed: FeedEvent[] = [];
  await waitUntil(`the ${written.length} events in the feed`, async () => {
    feed = await wholeFeed(account.key);
    const listed = new Set(feed.map((event) => event.event_id));
    return written.every((id) => listed.has(id)) ? true : undefined;
  });
  return feed;
}

describe('GET /events', () => {
  const driverId = 'feed-driver';
  const token = strongToken('feed-driver-login-token-01');
  const route = exampleRoute('feed-1', { waypoints: 3, driverId, startTime: BASE });
  const dc2Route = exampleRoute('feed-dc2', { waypoints: 1 });
  const globexRoute = exampleRoute('feed-globex', { waypoints: 1 });
  let all: { receiver: WebhookReceiver; webhook: CreatedWebhook };
  let feed: FeedEvent[] = [];

  const asDriver = (method: string, path: string, body?: unknown) =>
    hooks.request(method, path, { key: token, body });

  beforeAll(async () => {
    const acme = hooks.accounts.acme;
    const receiver = await hooks.receiver();
    all = { receiver, webhook: await hooks.createWebhook(receiver.url) };
    const created = await hooks.request('POST', '/dcs/dc-1/drivers', {
      key: acme.key,
      body: { driver_id: driverId, driver_name: 'Feed Driver', login_token: token },
    });
    expect(created.status, created.text).toBe(200);
    await importRoute(hooks.fx.api.url, acme.key, 'dc-1', route);
    await importRoute(hooks.fx.api.url, acme.key, 'dc-2', dc2Route);
    await importRoute(hooks.fx.api.url, hooks.accounts.globex.key, 'dc-1', globexRoute);
    await startAndVisitAllAtOnce(asDriver, route, 'feed-visit');
    const finished = await asDriver('POST', `/driver/routes/${route.id}/finish`, { timestamp: at(120) });
    expect(finished.status, finished.text).toBe(200);
    feed = await caughtUp(acme);
    // Three imports, a start, concurrent visits and a finish, each through its Lambda (cold in a fresh
    // runtime), then the feed caught up: about 30 s alone, several times that beside another test file.
  }, 300_000);

  it('lists every event of the account once, each with a cursor', async () => {
    const ids = feed.map((event) => event.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(await eventIdsWritten(hooks.accounts.acme.accountId));
    expect(new Set(feed.map((event) => event.cursor)).size).toBe(feed.length);
  });

  it('numbers each route’s events 1, 2, 3 ... with no gaps', () => {
    for (const routeId of [route.id, dc2Route.id]) {
      const sequences = feed
        .filter((event) => event.route_id === routeId)
        .map((event) => event.sequence as number)
        .sort((a, b) => a - b);
      expect(sequences).toEqual(sequences.map((_, index) => index + 1));
    }
    const ofRoute = feed.filter((event) => event.route_id === route.id);
    // ROUTE_CREATED, ROUTE_STARTED, three visits, ROUTE_FINISHED, and the ETA changes among them.
    expect(ofRoute.length).toBeGreaterThanOrEqual(6);
    expect(ofRoute.find((event) => event.event === 'ROUTE_CREATED')?.sequence).toBe(1);
    const finished = ofRoute.find((event) => event.event === 'ROUTE_FINISHED');
    expect(finished?.sequence).toBe(ofRoute.length);
  });

  it('gives each event as the body its webhook delivery carries, byte for byte, with its cursor', async () => {
    const ofDc1 = feed.filter((event) => event.dc_id === 'dc-1');
    await waitUntil('the dc-1 events at the receiver', () =>
      ofDc1.every((event) => all.receiver.deliveries.some((d) => eventIdOf(d) === event.event_id))
        ? true
        : undefined,
    );
    for (const { cursor: _, ...body } of ofDc1) {
      const delivery = all.receiver.deliveries.find((d) => eventIdOf(d) === body.event_id);
      // The same bytes, keys in the same order: a receiver can compare what it got with the feed.
      expect(delivery?.body).toBe(JSON.stringify(body));
    }
  });

  it('reads after a cursor the events after it, in the same order, page by page', async () => {
    const whole = await wholeFeed(hooks.accounts.acme.key, { limit: '1000' });
    expect(whole.map((event) => event.event_id)).toEqual(feed.map((event) => event.event_id));
    const byTwo = await wholeFeed(hooks.accounts.acme.key, { limit: '2' });
    expect(byTwo.map((event) => event.event_id)).toEqual(feed.map((event) => event.event_id));
    const third = feed[2] as FeedEvent;
    const after = await feedPage(hooks.accounts.acme.key, `?after=${third.cursor}&limit=1000`);
    expect(after.events.map((event) => event.event_id)).toEqual(feed.slice(3).map((event) => event.event_id));
    expect(after.has_more).toBe(false);
    // At the end of the feed: no events, and the cursor to poll with again.
    const end = await feedPage(hooks.accounts.acme.key, `?after=${after.next_cursor}`);
    expect(end).toEqual({ events: [], next_cursor: after.next_cursor, has_more: false });
  });

  it('ends a page at `limit` events', async () => {
    const page = await feedPage(hooks.accounts.acme.key, '?limit=3');
    expect(page.events.map((event) => event.event_id)).toEqual(
      feed.slice(0, 3).map((event) => event.event_id),
    );
    expect(page.has_more).toBe(true);
    expect(page.next_cursor).toBe(feed[2]?.cursor);
  });

  it('filters by DC, route and type', async () => {
    const key = hooks.accounts.acme.key;
    const ofDc2 = await wholeFeed(key, { dc_id: 'dc-2' });
    expect(ofDc2.map((event) => event.event_id)).toEqual(
      feed.filter((event) => event.dc_id === 'dc-2').map((event) => event.event_id),
    );
    expect(ofDc2.map((event) => event.route_id)).toEqual([dc2Route.id]);
    const ofRoute = await wholeFeed(key, { route_id: route.id, limit: '2' });
    expect(ofRoute.map((event) => event.event_id)).toEqual(
      feed.filter((event) => event.route_id === route.id).map((event) => event.event_id),
    );
    const visits = await wholeFeed(key, { type: 'WAYPOINT_STATUS_CHANGED' });
    expect(visits.map((event) => event.event_id)).toEqual(
      feed.filter((event) => event.event === 'WAYPOINT_STATUS_CHANGED').map((event) => event.event_id),
    );
    expect(visits).toHaveLength(3);
  });

  it('shows a tenant only its own events', async () => {
    const globex = await caughtUp(hooks.accounts.globex);
    expect(globex.map((event) => event.route_id)).toEqual([globexRoute.id]);
    const acmeIds = new Set(feed.map((event) => event.event_id));
    expect(globex.some((event) => acmeIds.has(event.event_id))).toBe(false);
    expect(feed.some((event) => event.route_id === globexRoute.id)).toBe(false);
  });

  it('refuses another account’s cursor, and a changed one, with 8000', async () => {
    const [globexEvent] = await wholeFeed(hooks.accounts.globex.key);
    const refused = await hooks.request('GET', `/events?after=${globexEvent?.cursor}`, {
      key: hooks.accounts.acme.key,
    });
    expect(expectError(refused, 400, 8000)).toMatch(/^after: /);
    const cursor = Buffer.from(feed[0]?.cursor as string, 'base64url').toString();
    const changed = Buffer.from(cursor.replace(/^1\./, '2.')).toString('base64url');
    expectError(
      await hooks.request('GET', `/events?after=${changed}`, { key: hooks.accounts.acme.key }),
      400,
      8000,
    );
    expectError(
      await hooks.request('GET', '/events?after=not-a-cursor', { key: hooks.accounts.acme.key }),
      400,
      8000,
    );
  });

  it('answers a cursor older than 30 days with 410 (8001)', async () => {
    const [position, , eventId] = Buffer.from(feed[0]?.cursor as string, 'base64url')
      .toString()
      .split('.');
    const old = Buffer.from(`${position}.${Date.now() - 31 * 86_400_000}.${eventId}`).toString('base64url');
    const refused = await hooks.request('GET', `/events?after=${old}`, { key: hooks.accounts.acme.key });
    expect(expectError(refused, 410, 8001)).toMatch(/^after: /);
  });

  it('refuses a DC of another account with 403, an unknown type and a limit out of range with 400', async () => {
    const key = hooks.accounts.acme.key;
    expectError(await hooks.request('GET', '/events?dc_id=gx-1', { key }), 403, 1002);
    expect(expectError(await hooks.request('GET', '/events?type=PING', { key }), 400, 1006)).toMatch(/type/);
    expect(expectError(await hooks.request('GET', '/events?type=ROUTE_LOST', { key }), 400, 1006)).toMatch(
      /type/,
    );
    expect(expectError(await hooks.request('GET', '/events?limit=0', { key }), 400, 1006)).toMatch(/limit/);
    expect(expectError(await hooks.request('GET', '/events?limit=1001', { key }), 400, 1006)).toMatch(
      /limit/,
    );
  });

  it('answers 401 without a key', async () => {
    expectError(await hooks.request('GET', '/events'), 401, 1001);
  });

  it('appends an event the queue delivers again only once', async () => {
    const acme = hooks.accounts.acme;
    const first = feed[0] as FeedEvent;
    const again = {
      event_id: first.event_id,
      type: 'ROUTE_CREATED' as const,
      dc_id: first.dc_id,
      route_id: first.route_id,
      sequence: first.sequence,
      occurred_at: first.hook_timestamp_millis as number,
      details: { route: first.route as never },
    };
    expect(await appendEvents(acme.accountId, [again, again])).toBe(0);
    const now = await wholeFeed(acme.key);
    expect(now.filter((event) => event.event_id === first.event_id)).toHaveLength(1);
  });
});
