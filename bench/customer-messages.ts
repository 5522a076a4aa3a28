import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { addDc, issueApiKey } from '../functions/domain/accounts';
import { configure } from '../functions/shared/config';
import { sampleRoute } from '../local/app/sample-route';
import { inParallel } from './dynamo';
import { ApiClient, expectingStatus, type JsonResponse } from './http';
import { importDriverRoute } from './route-body';
import type { Scenario } from './scenario';
import { check, distribution, round } from './stats';
import { closeLoadTargets, EventWriter, loadTargets, WEBHOOK_LOAD } from './webhook-event-writer';
import { type BenchWebhook, EVENT_TYPE } from './webhook-receiver';
import { apiDelete } from './webhook-runtime';

/**
 * Customer messages under the webhook bench's event load (issue: "from the triggering event's commit to the
 * provider call, p95 <= 60 s locally"). A DC of its own with ROUTE_STARTED and DELIVERED on for SMS and
 * email, ROUTES routes of STOPS stops, every stop with a recipient (phone and email). While the load's
 * LOAD_EVENTS ROUTE_STARTED event items are written into the same DC (as bench/webhooks.ts writes them, to 3
 * webhooks, 20 % of first attempts failing; each of them also reaches the notifications worker, which finds
 * no such route), the drivers start their routes and visit every stop through the driver API, one request at a
 * time, paced by the load's progress. Each message's time runs from its event's `occurred_at` (taken in the
 * transaction that commits the start or the visit; read from the event feed) to the local outbox receiving the
 * provider call (SES SendEmail or End User Messaging SendTextMessage; the outbox's `sent_at`), matched by the
 * notification id the call carries.
 */
const ROUTES = 10;
const STOPS = 10;
const WARM_STOPS = 2;
const LOAD_EVENTS = 2000;
const WEBHOOKS = 3;
const TRIGGERS = ['ROUTE_STARTED', 'DELIVERED'] as const;
const CHANNELS = ['SMS', 'EMAIL'] as const;
/** The driver actions are spread over this share of the load's writes: all of them happen under it. */
const ACTIONS_WITHIN_LOAD = 0.8;
const P95_TARGET_S = 60;
/**
 * How long the messages may take after the load: past the notifications queue's visibility timeout (360 s),
 * so that the events of a worker run that timed out, handed out again after it, still count.
 */
const DEADLINE_MS = 8 * 60_000;
/** The load's webhook deliveries are waited for at most this long (reported, not checked). */
const DELIVERIES_DEADLINE_MS = 5 * 60_000;
/** The wait ends early once the outbox got nothing new for this long and the notifications queue is empty. */
const SETTLED_MS = 30_000;
/** A driver app sends a start or visit that got a 5xx again (the same attempt id): at most this many times. */
const DRIVER_TRIES = 3;
const WARM_DEADLINE_MS = 120_000;
const SETUP_PARALLELISM = 3;

interface OutboxMessage {
  channel: 'EMAIL' | 'SMS';
  to: string;
  tags: Record<string, string>;
  sent_at: number;
}

interface NotificationRow {
  id: string;
  event_id: string;
  trigger: string;
  channel: string;
  status: string;
  created_at: number;
}

interface BenchRoute {
  id: string;
  token: string;
  body: ReturnType<typeof sampleRoute>;
}

const emailOf = (runId: string, route: number, stop: number) => `r${route}.s${stop}.${runId}@example.com`;
const phoneOf = (route: number, stop: number) => `+1415555${String(route * 100 + stop).padStart(4, '0')}`;

export const customerMessagesScenario: Scenario = {
  name: 'customer_messages',
  async run({ runtime, demo: { stack, accountId }, abort, log }) {
    const logOffset = statSync(runtime.logFile).size;
    // The bench acts as the local operator (as npm start's admin CLI does): it adds the DC with the service's
    // code; the load's event items are written with the data layer's builder, which names the table.
    configure(stack.operator_environment ?? { TABLE_NAME: stack.table_name });
    const runId = randomBytes(3).toString('hex');
    const dcId = `msg-${runId}`;
    await addDc(accountId, { dcId, name: 'Bench Messages', timeZone: 'UTC' });
    // A key of its own: the authorizer caches a key's DCs for a minute, and the demo key's are older.
    const { apiKey } = await issueApiKey(accountId);
    const api = new ApiClient(stack.api_url, apiKey, 8);
    const targets = loadTargets(stack, abort);
    const { receiver, webhooks, queues } = targets;
    /** True when the notifications queue holds nothing: no event is left that could still cause a message. */
    const notificationsDrained = async () => {
      const url = stack.queue_urls?.notifications;
      return url ? queues.holdsNothing(url) : false;
    };
    const apiErrors: string[] = [];
    const expectOk = expectingStatus(apiErrors);
    const outbox = async (): Promise<OutboxMessage[]> => {
      const response = await fetch(`${stack.api_url}/_local/outbox`);
      if (response.status !== 200) throw new Error(`GET /_local/outbox: ${response.status}`);
      return ((await response.json()) as { messages: OutboxMessage[] }).messages;
    };
    /**
     * Waits until the outbox holds `count` messages to `addresses`, at most `deadlineMs`, or (`settle`) until
     * nothing new came for SETTLED_MS while the notifications queue was empty: the messages still missing
     * will not come. Answers the messages found.
     */
    const outboxReaches = async (
      addresses: ReadonlySet<string>,
      count: number,
      deadlineMs: number,
      settle = false,
    ) => {
      const deadline = Date.now() + deadlineMs;
      let progressAt = Date.now() + 15_000;
      let seen = -1;
      let seenSince = Date.now();
      for (;;) {
        abort.throwIfAborted();
        const found = (await outbox()).filter((message) => addresses.has(message.to));
        if (found.length >= count || Date.now() > deadline) return found;
        if (found.length !== seen) [seen, seenSince] = [found.length, Date.now()];
        else if (settle && Date.now() - seenSince > SETTLED_MS && (await notificationsDrained())) {
          log(
            `  ${found.length} of ${count} messages: nothing new for ${SETTLED_MS / 1000} s, no event left`,
          );
          return found;
        }
        if (Date.now() >= progressAt) {
          progressAt += 15_000;
          log(`  ${found.length} of ${count} messages in the outbox`);
        }
        await sleep(250);
      }
    };
    let driverRetries = 0;
    /**
     * A driver app's request, sent again (as the app does) while it answers 5xx; a start sent again that finds
     * the route started (3011) was done by the try that timed out.
     */
    const asDriver = async (what: string, send: () => Promise<JsonResponse>) => {
      for (let tries = 1; ; tries++) {
        const response = await send();
        const code = (response.body as { data?: { code?: number } } | undefined)?.data?.code;
        if (tries > 1 && response.status === 400 && code === 3011) return response;
        if (response.status < 500 || tries === DRIVER_TRIES) return expectOk(what, response);
        driverRetries++;
      }
    };

    try {
      expectOk(
        'PUT notification-settings',
        await api.put(
          `/dcs/${dcId}/notification-settings`,
          JSON.stringify({ triggers: TRIGGERS, channels: CHANNELS }),
        ),
      );
      const receiverUrl = await receiver.listen();
      for (let w = 0; w < WEBHOOKS; w++) {
        const created = expectOk(
          'POST /webhooks',
          await api.post(
            '/webhooks',
            JSON.stringify({ webhook_url: `${receiverUrl}/hook/${w}`, events: [EVENT_TYPE], dc_ids: [dcId] }),
          ),
        );
        const webhook = (created.body as { data: { webhook: BenchWebhook } }).data.webhook;
        webhooks.push({ id: webhook.id, secret: webhook.secret });
        receiver.webhooks.set(webhook.id, webhooks[w] as BenchWebhook);
      }

      // Route 0 warms the path up (its messages are not counted); routes 1..ROUTES are measured.
      const routes: BenchRoute[] = Array.from({ length: ROUTES + 1 }, (_, r) => {
        const id = `msg-${runId}-${r}`;
        const body = sampleRoute(id, {
          waypoints: r === 0 ? WARM_STOPS : STOPS,
          driverId: id,
          startTime: Date.now(),
        });
        body.waypoints.forEach((waypoint, s) => {
          Object.assign(waypoint, { recipient: { phone: phoneOf(r, s), email: emailOf(runId, r, s) } });
        });
        return { id, token: `msg-${randomBytes(32).toString('base64url')}`, body };
      });
      log(`customer_messages: ${ROUTES} routes of ${STOPS} stops with recipients in DC ${dcId}: importing`);
      await inParallel(routes, SETUP_PARALLELISM, abort, (route) =>
        importDriverRoute(api, expectOk, { dcId, id: route.id, token: route.token, route: route.body }),
      );
      const start = (route: BenchRoute) =>
        api.post(
          `/driver/routes/${encodeURIComponent(route.id)}/start`,
          JSON.stringify({ timestamp: Date.now() }),
          route.token,
        );

      log('customer_messages: warm-up route started');
      const warm = routes[0] as BenchRoute;
      await asDriver('warm-up start', () => start(warm));
      const warmAddresses = new Set(
        warm.body.waypoints.flatMap((_, s) => [phoneOf(0, s), emailOf(runId, 0, s)]),
      );
      const warmed = await outboxReaches(warmAddresses, warmAddresses.size, WARM_DEADLINE_MS);
      if (warmed.length < warmAddresses.size)
        throw new Error(
          `the warm-up route's messages did not reach the outbox within ${WARM_DEADLINE_MS / 1000} s`,
        );

      // The feed's end before the load: the events the messages came from are read from here on.
      let cursor: string | null = null;
      for (let more = true; more; ) {
        const page = expectOk(
          'GET /events',
          await api.get(`/events?limit=1000${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`),
        );
        const data = (page.body as { data: { next_cursor: string | null; has_more: boolean } }).data;
        cursor = data.next_cursor;
        more = data.has_more;
      }

      const writer = new EventWriter({
        accountId,
        dcId,
        driverId: warm.id,
        runId,
        ...targets,
        abort,
        log,
        progressEveryMs: 5000,
      });
      const events = writer.prepare(LOAD_EVENTS, 0, false);
      const pairs = events.flatMap((event) => event.pairs);
      log(
        `customer_messages: writing ${LOAD_EVENTS} ${EVENT_TYPE} events; the drivers start and visit meanwhile`,
      );
      const writing = writer.write(events).catch((error: unknown) => {
        writer.writeError = error;
        return Number.NaN;
      });

      // One request after another (each route's start, then each stop's visit, route by route in turn), each
      // once the load wrote its share. Side by side, the routes' requests overran the API's 10 s timeout on a
      // busy two-core machine. Counted as raised under the load when the answer (after the commit) came
      // before the load's last write.
      const measured = routes.slice(1);
      const actions = Array.from({ length: STOPS + 1 }, (_, step) =>
        measured.map((route) => ({ route, step })),
      ).flat();
      let raisedUnderLoad = 0;
      for (const [j, { route, step }] of actions.entries()) {
        const due = Math.floor((j * LOAD_EVENTS * ACTIONS_WITHIN_LOAD) / actions.length);
        while (writer.written < due) {
          abort.throwIfAborted();
          if (writer.writeError) throw writer.writeError;
          await sleep(20);
        }
        await drive(route, step);
        if (writer.written < LOAD_EVENTS) raisedUnderLoad++;
      }
      async function drive(route: BenchRoute, step: number) {
        const stop = route.body.waypoints[step - 1];
        if (!stop) await asDriver('start', () => start(route));
        else
          await asDriver('attempt', () =>
            api.post(
              `/driver/routes/${encodeURIComponent(route.id)}/waypoints/${encodeURIComponent(stop.id)}/attempts`,
              JSON.stringify({
                id: `${stop.id}-visit`,
                timestamp: Date.now(),
                status: 'SUCCESSFUL',
                location: stop.location,
              }),
              route.token,
            ),
          );
      }
      const writeMs = await writing;
      if (writer.writeError) throw writer.writeError;
      log(`customer_messages: load written in ${round(writeMs / 1000, 1)} s; waiting for the messages`);

      const addresses = new Set(
        measured.flatMap((route, r) =>
          route.body.waypoints.flatMap((_, s) => [phoneOf(r + 1, s), emailOf(runId, r + 1, s)]),
        ),
      );
      const expected = addresses.size * TRIGGERS.length;
      const sent = await outboxReaches(addresses, expected, DEADLINE_MS, true);

      // Each message's record (its event), then each event's occurred_at from the feed.
      const records = new Map<string, NotificationRow>();
      const stops = measured.flatMap((route) =>
        route.body.waypoints.map((waypoint) => ({ route, waypoint })),
      );
      await inParallel(stops, 8, abort, async ({ route, waypoint }) => {
        const listed = expectOk(
          'GET notifications',
          await api.get(
            `/dcs/${dcId}/routes/${encodeURIComponent(route.id)}/waypoints/${encodeURIComponent(waypoint.id)}/notifications`,
          ),
        );
        const rows =
          (listed.body as { data?: { notifications?: NotificationRow[] } }).data?.notifications ?? [];
        for (const row of rows) records.set(row.id, row);
      });
      const wanted = new Set([...records.values()].map((row) => row.event_id));
      const occurredAt = new Map<string, number>();
      const feedDeadline = Date.now() + DEADLINE_MS;
      while ([...wanted].some((id) => !occurredAt.has(id)) && Date.now() < feedDeadline) {
        abort.throwIfAborted();
        const page = expectOk(
          'GET /events',
          await api.get(`/events?limit=1000${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`),
        );
        const data = (
          page.body as {
            data?: {
              events: { event_id: string; hook_timestamp_millis: number }[];
              next_cursor: string | null;
              has_more: boolean;
            };
          }
        ).data;
        if (!data) break;
        for (const event of data.events)
          if (wanted.has(event.event_id)) occurredAt.set(event.event_id, event.hook_timestamp_millis);
        cursor = data.next_cursor;
        if (!data.has_more) await sleep(500);
      }

      const timed = sent.flatMap((message) => {
        const record = records.get(message.tags.notification_id ?? '');
        const occurred = record ? occurredAt.get(record.event_id) : undefined;
        return record && occurred !== undefined ? [{ message, record, occurred }] : [];
      });
      const seconds = (ms: number) => ms / 1000;
      const commitToProvider = timed.map(({ message, occurred }) => seconds(message.sent_at - occurred));
      const byTrigger = Object.fromEntries(
        TRIGGERS.map((trigger) => [
          trigger,
          distribution(
            timed
              .filter(({ record }) => record.trigger === trigger)
              .map(({ message, occurred }) => seconds(message.sent_at - occurred)),
          ),
        ]),
      );

      // The load's webhook deliveries finish before the next scenario: nothing of this one is left in flight.
      const delivered = await writer.waitForDeliveries(
        pairs,
        DELIVERIES_DEADLINE_MS,
        'webhook deliveries',
        false,
      );
      // A worker run that timed out lost the message it was sending (recorded QUEUED, never sent: docs/api.md);
      // the events it had not reached yet came back after the queue's visibility timeout.
      const logged = readFileSync(runtime.logFile).subarray(logOffset).toString('utf8').split('\n');
      const timeoutsOf = (fn: string) =>
        logged.filter((line) => line.startsWith(`${fn} | REPORT`) && line.includes('Status: timeout')).length;
      const queuedNotSent = [...records.values()].filter((row) => row.status === 'QUEUED').length;
      const distributionOf = (values: number[]) => {
        const { p50, p95, max, samples } = distribution(values);
        return { p50, p95, max, samples };
      };
      return {
        description:
          `A DC with ${TRIGGERS.join(' and ')} on for ${CHANNELS.join(' and ')}; ${ROUTES} routes of ${STOPS} ` +
          'stops, each stop with a recipient (phone and email), started and visited (SUCCESSFUL) through the ' +
          `driver API while ${LOAD_EVENTS} ${EVENT_TYPE} event items are written into the same DC (${WEBHOOK_LOAD.writeParallelism} ` +
          `in flight, to ${WEBHOOKS} webhooks, every ${WEBHOOK_LOAD.failEvery}th first attempt failing, as webhook_delivery ` +
          'writes them; each also reaches the notifications worker). Time per message: its event’s occurred_at ' +
          '(the event feed) -> the local outbox got the SES SendEmail or SendTextMessage call (its sent_at). A ' +
          'warm-up route went through first (not counted).',
        errors: apiErrors.length,
        ...(apiErrors.length ? { api_error_samples: apiErrors.slice(0, 5) } : {}),
        dc_id: dcId,
        routes: ROUTES,
        stops: ROUTES * STOPS,
        load_events: LOAD_EVENTS,
        load_write_s: round(writeMs / 1000, 1),
        triggering_events: actions.length,
        triggering_events_raised_while_load_written: raisedUnderLoad,
        messages_expected: expected,
        messages_sent: sent.length,
        messages_timed: timed.length,
        events_not_in_feed: [...wanted].filter((id) => !occurredAt.has(id)).length,
        commit_to_provider_s: distributionOf(commitToProvider),
        commit_to_provider_s_by_trigger: byTrigger,
        /** Where the time goes: the event path up to the worker's record, then the worker's send. */
        commit_to_record_s: distributionOf(
          timed.map(({ record, occurred }) => seconds(record.created_at - occurred)),
        ),
        record_to_provider_s: distributionOf(
          timed.map(({ message, record }) => seconds(message.sent_at - record.created_at)),
        ),
        driver_request_retries_after_5xx: driverRetries,
        /** Runs of the notifications worker that hit their 60 s timeout, and of the driver app's attempt and start. */
        worker_timeouts: {
          send_notifications: timeoutsOf('SendNotificationsFunction'),
          driver_app_attempt: timeoutsOf('DriverAppAttemptFunction'),
          driver_app_start: timeoutsOf('DriverAppStartFunction'),
        },
        /** Messages recorded but never sent: the worker run timed out between the record and the provider call. */
        messages_recorded_not_sent: queuedNotSent,
        load_webhook_pairs_delivered: delivered
          ? pairs.length
          : pairs.filter((pair) => pair.firstSuccessAt !== undefined).length,
        load_webhook_pairs: pairs.length,
        checks: {
          notification_commit_to_provider_p95_seconds: check(
            distribution(commitToProvider).p95,
            '<=',
            P95_TARGET_S,
            'per customer message: its triggering event’s occurred_at -> the provider call reached the local ' +
              `outbox, under ${LOAD_EVENTS} events written to the DC`,
          ),
          messages_missing: check(
            expected - timed.length,
            '<=',
            0,
            `messages of the ${ROUTES * STOPS} stops (${TRIGGERS.length} triggers x ${CHANNELS.length} channels) ` +
              `not in the outbox with their event in the feed within ${DEADLINE_MS / 60_000} min`,
          ),
        },
      };
    } finally {
      for (const webhook of webhooks.splice(0)) {
        const status = await apiDelete(
          stack.api_url,
          apiKey,
          `/webhooks/${encodeURIComponent(webhook.id)}`,
        ).catch((error: unknown) => String(error));
        if (status !== 200) log(`  deleting webhook ${webhook.id} failed: ${status}`);
      }
      api.close();
      await closeLoadTargets(targets);
    }
  },
};
