import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { addDc, issueApiKey } from '../functions/domain/accounts';
import { SUBSCRIBABLE_EVENTS } from '../functions/models/event-catalog';
import { configure } from '../functions/shared/config';
import { sampleRoute } from '../local/app/sample-route';
import type { PartitionUsage } from '../local/aws-proxy/dynamodb-partitions';
import { inParallel } from './dynamo';
import { ApiClient, expectingStatus } from './http';
import { startHttpReceiver } from './http-receiver';
import { consumedBetween, partitionReport } from './partitions';
import { importDriverRoute } from './route-body';
import type { Scenario } from './scenario';
import { check, distribution, percentile, round } from './stats';

/**
 * One busy account's day, scaled down: every driver pings every 10 s and completes a stop every 3 minutes, as
 * on the road, but there are fewer of them. The partition model counts what the service wrote and read per
 * key while they drove; each key's rate is then scaled up by how many more routes share it in the full day
 * (FULL_DAY): an account-wide key (the event feed, a webhook's delivery log) by the whole account's routes, a
 * DC's key (its drivers' items) by the DC's routes, a route's, driver's or event's own key not at all.
 */
const FULL_DAY = { dcs: 10, routesPerDc: 100, stops: 150 } as const;
const PING_EVERY_MS = 10_000;
const STOP_EVERY_MS = 180_000;
const WEBHOOKS = 3;
/** Routes per DC driven here (BENCH_BUSY_DAY_ROUTES_PER_DC), and for how long (BENCH_BUSY_DAY_SECONDS). */
const LOCAL_ROUTES_PER_DC = Number(process.env.BENCH_BUSY_DAY_ROUTES_PER_DC ?? 3);
const DAY_SECONDS = Number(process.env.BENCH_BUSY_DAY_SECONDS ?? 180);
const LAG_TARGET_MS = 5000;
const DRAIN_DEADLINE_MS = 5 * 60_000;
const SETUP_PARALLELISM = 3;

/** How a partition key's load grows from the local run to the full day: who shares the key. */
type Scope = 'account' | 'dc' | 'own';

/** What the scenario reads of an event, in a webhook body or a feed entry. */
interface DayEvent {
  event_id: string;
  route_id?: unknown;
  hook_timestamp_millis: number;
}

/** By the key's prefix (its index's for an index key): the kinds of item the table holds (docs/architecture.md). */
function scopeOf(p: Pick<PartitionUsage, 'index' | 'partitionKey'>): Scope {
  const prefix = p.partitionKey.split('#')[0] as string;
  if (
    ['ROUTE', 'ROUTE_ROWS', 'TRACE', 'DRIVER_TOKEN', 'EVENT', 'FEED_EVENT', 'CLAIM', 'IMPORT'].includes(
      prefix,
    )
  )
    return 'own';
  if (['ACTIVE_ROUTES', 'IDEMPOTENCY', 'SIGN_IN_FAILURES', 'TRACKING'].includes(prefix)) return 'own';
  if (['DC', 'ROUTES_BY_DATE', 'ANALYTICS'].includes(prefix)) return 'dc';
  // The feed, its last position, the webhooks' delivery logs and the account's own items; and anything not
  // named above, taken as the whole account's (the most it could grow).
  return 'account';
}

const kindOf = (p: Pick<PartitionUsage, 'index' | 'partitionKey'>) =>
  `${p.index ? `${p.index}:` : ''}${p.partitionKey.split('#')[0]}#…`;

interface Driver {
  id: string;
  token: string;
  dcId: string;
  route: ReturnType<typeof sampleRoute>;
  /** The stop the driver is heading for. */
  next: number;
  pings: number;
  attempts: number;
}

export const busyDayScenario: Scenario = {
  name: 'busy_day',
  async run({ demo: { stack, accountId, dcId }, abort, log }) {
    // The bench acts as the local operator (as npm start's admin CLI does): it adds the DCs with the service's code.
    configure(stack.operator_environment ?? { TABLE_NAME: stack.table_name });
    const runId = randomBytes(3).toString('hex');
    const errors: string[] = [];
    const dcIds = [dcId, ...Array.from({ length: FULL_DAY.dcs - 1 }, (_, n) => `busy-${runId}-${n + 1}`)];
    for (const id of dcIds.slice(1))
      await addDc(accountId, { dcId: id, name: `Busy ${id}`, timeZone: 'UTC' });
    // A key of its own: the authorizer caches a key's DCs for a minute, and the demo key's are older.
    const { apiKey } = await issueApiKey(accountId);
    const api = new ApiClient(stack.api_url, apiKey, 32);
    const expectOk = expectingStatus(errors);

    // What each event's first delivery and first feed listing took, from when it happened. Only the day's own
    // routes count: the demo route that npm start imports comes through the pipeline in its own time, and its
    // ROUTE_CREATED could reach the feed after the reader's start but before the webhooks exist.
    const occurredAt = new Map<string, number>();
    const deliveredAt = new Map<string, number>();
    const listedAt = new Map<string, number>();
    const ofTheDay = (event: { route_id?: unknown }) =>
      typeof event.route_id === 'string' && event.route_id.startsWith(`busy-${runId}-`);
    const receiver = await startHttpReceiver((request, respond) => {
      try {
        const body = JSON.parse(request.body) as DayEvent;
        if (!ofTheDay(body)) return respond(200, 'ok');
        occurredAt.set(body.event_id, body.hook_timestamp_millis);
        if (!deliveredAt.has(body.event_id)) deliveredAt.set(body.event_id, Date.now());
      } catch {
        errors.push(`receiver: a body that is not JSON: ${request.body.slice(0, 100)}`);
      }
      respond(200, 'ok');
    });
    const webhookIds: string[] = [];
    const drivers: Driver[] = [];
    // The feed reader polls while this is true: until the day drained, or the scenario failed.
    let reading = false;
    try {
      // The feed from its end before the day's first change (the demo account has older events), then read as an ERP
      // polls it until everything the day caused was listed: each event's first listing.
      let cursor: string | null = null;
      for (let more = true; more; ) {
        const page = await api.get(
          `/events?limit=1000${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`,
        );
        const data = (page.body as { data: { next_cursor: string | null; has_more: boolean } }).data;
        cursor = data.next_cursor;
        more = data.has_more;
      }
      reading = true;
      const feedReader = (async () => {
        while (reading) {
          const page = await api.get(
            `/events?limit=1000${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`,
          );
          const data = (
            page.body as {
              data?: {
                events: DayEvent[];
                next_cursor: string | null;
                has_more: boolean;
              };
            }
          ).data;
          if (!data) {
            expectOk('GET /events', page);
            await sleep(1000);
            continue;
          }
          for (const event of data.events.filter(ofTheDay)) {
            occurredAt.set(event.event_id, event.hook_timestamp_millis);
            if (!listedAt.has(event.event_id)) listedAt.set(event.event_id, Date.now());
          }
          cursor = data.next_cursor;
          if (!data.has_more) await sleep(200);
        }
      })();

      for (let w = 0; w < WEBHOOKS; w++) {
        const created = expectOk(
          'POST /webhooks',
          await api.post(
            '/webhooks',
            JSON.stringify({
              webhook_url: `${receiver.origin}/hook/${w}`,
              events: SUBSCRIBABLE_EVENTS,
              dc_ids: dcIds,
            }),
          ),
        );
        webhookIds.push((created.body as { data: { webhook: { id: string } } }).data.webhook.id);
      }
      // Routes started ten minutes late, their stops a few minutes apart along a line.
      const start = Date.now() - 10 * 60_000;
      for (const dc of dcIds)
        for (let r = 0; r < LOCAL_ROUTES_PER_DC; r++) {
          const id = `busy-${runId}-${drivers.length}`;
          drivers.push({
            id,
            token: `busy-${randomBytes(32).toString('base64url')}`,
            dcId: dc,
            route: sampleRoute(id, { waypoints: FULL_DAY.stops, driverId: id, startTime: start }),
            next: 0,
            pings: 0,
            attempts: 0,
          });
        }
      log(
        `busy_day: ${drivers.length} drivers in ${dcIds.length} DCs, routes of ${FULL_DAY.stops} stops: importing`,
      );
      await inParallel(drivers, SETUP_PARALLELISM, abort, async (driver) => {
        await importDriverRoute(api, expectOk, driver);
        expectOk(
          'start',
          await api.post(
            `/driver/routes/${encodeURIComponent(driver.id)}/start`,
            JSON.stringify({ timestamp: Date.now() }),
            driver.token,
          ),
        );
      });

      log(
        `busy_day: driving for ${DAY_SECONDS} s (a ping every ${PING_EVERY_MS / 1000} s, a stop every ${STOP_EVERY_MS / 1000} s)`,
      );
      const before = await partitionReport(stack);
      const dayStarted = performance.now();
      const dayEnds = Date.now() + DAY_SECONDS * 1000;
      await Promise.all(
        drivers.map(async (driver, n) => {
          // Staggered: the drivers' pings and stops spread over their periods.
          let nextPing = Date.now() + (n * PING_EVERY_MS) / drivers.length;
          let nextStop = Date.now() + (((n * STOP_EVERY_MS) / drivers.length) % STOP_EVERY_MS);
          while (Date.now() < dayEnds) {
            abort.throwIfAborted();
            const stop = driver.route.waypoints[driver.next];
            if (!stop) break;
            if (Date.now() >= nextStop) {
              expectOk(
                'attempt',
                await api.post(
                  `/driver/routes/${encodeURIComponent(driver.id)}/waypoints/${encodeURIComponent(stop.id)}/attempts`,
                  JSON.stringify({
                    id: `${driver.id}-${driver.next}`,
                    timestamp: Date.now(),
                    status: 'SUCCESSFUL',
                    location: stop.location,
                  }),
                  driver.token,
                ),
              );
              driver.attempts++;
              driver.next++;
              nextStop += STOP_EVERY_MS;
            } else if (Date.now() >= nextPing) {
              expectOk(
                'ping',
                await api.post(
                  '/driver/location',
                  JSON.stringify({ timestamp: Date.now(), location: stop.location }),
                  driver.token,
                ),
              );
              driver.pings++;
              nextPing += PING_EVERY_MS;
            }
            await sleep(Math.max(10, Math.min(nextPing, nextStop, dayEnds) - Date.now()));
          }
        }),
      );
      const drivenMs = performance.now() - dayStarted;
      // Everything the day caused reaches the webhooks and the feed (the lags count it), then the units are read.
      const drainDeadline = Date.now() + DRAIN_DEADLINE_MS;
      while (Date.now() < drainDeadline) {
        const pending = [...occurredAt.keys()].filter((id) => !deliveredAt.has(id) || !listedAt.has(id));
        if (pending.length === 0 && Date.now() > dayEnds + 5000) break;
        await sleep(500);
      }
      reading = false;
      await feedReader;
      const after = await partitionReport(stack);

      const lags = (seen: Map<string, number>) =>
        [...occurredAt].flatMap(([id, at]) => {
          const when = seen.get(id);
          return when === undefined ? [] : [when - at];
        });
      const webhookLags = lags(deliveredAt).sort((a, b) => a - b);
      const feedLags = lags(listedAt).sort((a, b) => a - b);
      const missing = {
        webhook: [...occurredAt.keys()].filter((id) => !deliveredAt.has(id)).length,
        feed: [...occurredAt.keys()].filter((id) => !listedAt.has(id)).length,
      };

      // The units of the day, per key, at full scale: each key's units a second here, times how many more
      // routes share it in the full day.
      const consumed = before && after ? consumedBetween(before, after) : [];
      const seconds = drivenMs / 1000;
      const growth: Record<Scope, number> = {
        account: (FULL_DAY.dcs * FULL_DAY.routesPerDc) / drivers.length,
        dc: FULL_DAY.routesPerDc / LOCAL_ROUTES_PER_DC,
        own: 1,
      };
      const byKind = new Map<string, { scope: Scope; keys: number; write: number; read: number }>();
      for (const p of consumed) {
        const kind = kindOf(p);
        const entry = byKind.get(kind) ?? { scope: scopeOf(p), keys: 0, write: 0, read: 0 };
        entry.keys++;
        // The busiest key of the kind: its rate here, and at full scale.
        entry.write = Math.max(entry.write, p.writeUnits / seconds);
        entry.read = Math.max(entry.read, p.readUnits / seconds);
        byKind.set(kind, entry);
      }
      const keys = [...byKind]
        .map(([kind, k]) => ({
          kind,
          scope: k.scope,
          keys_here: k.keys,
          busiest_write_units_per_s_here: round(k.write, 2),
          busiest_read_units_per_s_here: round(k.read, 2),
          full_day_write_units_per_s: round(k.write * growth[k.scope], 1),
          full_day_read_units_per_s: round(k.read * growth[k.scope], 1),
        }))
        .sort((a, b) => b.full_day_write_units_per_s - a.full_day_write_units_per_s);
      const shareOfLimit = Math.max(
        0,
        ...keys.map((k) => Math.max(k.full_day_write_units_per_s / 1000, k.full_day_read_units_per_s / 3000)),
      );
      const pings = drivers.reduce((total, d) => total + d.pings, 0);
      const attempts = drivers.reduce((total, d) => total + d.attempts, 0);
      return {
        description:
          `one account, ${dcIds.length} DCs, ${drivers.length} started routes of ${FULL_DAY.stops} stops (the full day: ` +
          `${FULL_DAY.dcs * FULL_DAY.routesPerDc}), ${WEBHOOKS} webhooks subscribed to every event of every DC: each ` +
          `driver pings every ${PING_EVERY_MS / 1000} s and records a successful stop every ${STOP_EVERY_MS / 1000} s ` +
          `(staggered) for ${DAY_SECONDS} s, while a reader polls GET /events. Lags: from an event's occurred_at to ` +
          'its first delivery at a webhook, and to its first listing by the reader (polling every 200 ms when caught ' +
          "up). Keys: the partition model's units on each key while the drivers drove (and the pipeline drained), " +
          'per second, for the busiest key of each kind; full_day_* scales it by how many more routes share such a ' +
          `key in the full day: x${round(growth.account, 1)} for the account's keys (feed, webhook logs), ` +
          `x${round(growth.dc, 1)} for a DC's (its drivers), x1 for a route's, driver's or event's own.`,
        errors: errors.length,
        ...(errors.length ? { error_samples: errors.slice(0, 5) } : {}),
        dcs: dcIds.length,
        routes: drivers.length,
        driven_s: round(seconds, 1),
        pings,
        attempts,
        events: occurredAt.size,
        events_per_s: round(occurredAt.size / seconds, 2),
        events_per_s_full_day: round((occurredAt.size / seconds) * growth.account, 1),
        missing,
        lag_ms: { webhook: distribution(webhookLags), feed: distribution(feedLags) },
        keys,
        checks: {
          full_day_busiest_key_share_of_limit: check(
            shareOfLimit,
            '<=',
            1,
            "the busiest key's units a second in the full day over AWS's per-key limit (1,000 write, 3,000 read): " +
              'over 1, AWS would throttle it',
          ),
          webhook_lag_p99_ms: check(
            missing.webhook ? Number.POSITIVE_INFINITY : percentile(webhookLags, 99),
            '<=',
            LAG_TARGET_MS,
            'event occurred -> first delivery at a webhook, p99 (every event delivered)',
          ),
          feed_lag_p99_ms: check(
            missing.feed ? Number.POSITIVE_INFINITY : percentile(feedLags, 99),
            '<=',
            LAG_TARGET_MS,
            'event occurred -> first listed by a reader polling GET /events, p99 (every event listed)',
          ),
        },
      };
    } finally {
      reading = false;
      for (const id of webhookIds)
        await api.delete(`/webhooks/${encodeURIComponent(id)}`).catch(() => undefined);
      api.close();
      await receiver.close();
    }
  },
};
