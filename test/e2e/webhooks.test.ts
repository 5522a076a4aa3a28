import { randomBytes } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import * as drivers from '../../functions/api/drivers/index';
import * as webhooks from '../../functions/api/webhooks/index';
import { db } from '../../functions/data/client';
import { listDeliveryAttempts } from '../../functions/data/webhook-deliveries';
import { acceptImport } from '../../functions/domain/route-import';
import type { DeliveryMessage } from '../../functions/domain/webhook-events';
import * as webhookEvents from '../../functions/domain/webhook-events';
import { verifySignature } from '../../functions/domain/webhook-http';
import { sendTestEvent } from '../../functions/domain/webhooks';
import {
  type EventType,
  exampleEvent,
  SUBSCRIBABLE_EVENTS,
  WEBHOOK_BODY_SCHEMAS,
} from '../../functions/models/event-catalog';
import { ImportRoute } from '../../functions/models/import-model';
import { createTestAccount } from '../support/accounts';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { type ApiResponse, expectError, expectSuccess, readAllPages } from '../support/http';
import { exampleRoute, importRoute, waitForImport } from '../support/routes';
import {
  eventIdOf,
  eventTypeOf,
  findInDeliveriesDlq,
  headerOf,
  independentlyVerified,
  type ReceivedDelivery,
  standardVerified,
  startWebhookReceiver,
  type WebhookReceiver,
  waitForQueuesDrained,
  waitUntil,
} from '../support/webhook-receiver';

/**
 * Webhooks end to end: the API of spec §4.4 (and its deliveries/test extras), then every event of spec §6
 * and DESIGN §4 caused through the API and received, signed, by real HTTP receivers on 127.0.0.1 through
 * the whole pipeline (table stream -> events queue -> fan-out -> deliveries queue -> signed POST), then
 * the SSRF guard, which the local runtime turns off, called in-process with the guard on.
 */

type Webhook = z.infer<typeof webhooks.Webhook>;
type CreatedWebhook = Webhook & { secret: string };
type DeliveryAttempt = z.infer<typeof webhooks.DeliveryAttempt>;

const fx = useTestApi('webhooks', { streams: true });
const { request } = fx;
let acme: TestAccount;
let globex: TestAccount;
const receivers: WebhookReceiver[] = [];

const asAcme = (method: string, path: string, body?: unknown) => fx.as(acme.key, method, path, body);

/** Every type a webhook can subscribe to, from the event catalog. */
const ALL_EVENTS: string[] = [...SUBSCRIBABLE_EVENTS];

const MINUTE = 60_000;
/** Three hours ago, on a whole second: every reported time of the tests is between BASE and now. */
const BASE = Math.floor(Date.now() / 1000) * 1000 - 180 * MINUTE;
const at = (minutes: number) => BASE + minutes * MINUTE;

beforeAll(async () => {
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]);
  // Globex has a DC with the same id as one of Acme's: webhooks never cross accounts.
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }, { dcId: 'gx-1' }]);
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

async function receiver(...args: Parameters<typeof startWebhookReceiver>) {
  const started = await startWebhookReceiver(...args);
  receivers.push(started);
  return started;
}

const createBody = (url: string, events = ALL_EVENTS, dcIds = ['dc-1']) => ({
  webhook_url: url,
  events,
  dc_ids: dcIds,
});

async function createWebhook(
  url: string,
  events = ALL_EVENTS,
  dcIds = ['dc-1'],
  key = acme.key,
): Promise<CreatedWebhook> {
  const response = await request('POST', '/webhooks', { key, body: createBody(url, events, dcIds) });
  return (expectSuccess(response, webhooks.createWebhook) as { webhook: CreatedWebhook }).webhook;
}

async function listWebhooks(key = acme.key): Promise<Webhook[]> {
  const response = await request('GET', '/webhooks', { key });
  return (expectSuccess(response, webhooks.listWebhooks) as { webhooks: Webhook[] }).webhooks;
}

async function setEnabled(id: string, enabled: boolean, method: 'PATCH' | 'PUT' = 'PATCH'): Promise<Webhook> {
  const response = await asAcme(method, `/webhooks/${id}`, { enabled });
  return (expectSuccess(response, webhooks.updateWebhook) as { webhook: Webhook }).webhook;
}

async function deliveriesOf(id: string, key = acme.key): Promise<DeliveryAttempt[]> {
  const response = await request('GET', `/webhooks/${id}/deliveries`, { key });
  return (expectSuccess(response, webhooks.listWebhookDeliveries) as { deliveries: DeliveryAttempt[] })
    .deliveries;
}

async function sendTest(id: string): Promise<string> {
  const response = await asAcme('POST', `/webhooks/${id}/test`);
  return (expectSuccess(response, webhooks.testWebhook) as { event_id: string }).event_id;
}

/** The view every read shows: the creation answer without the secret. */
const viewOf = ({ secret: _secret, ...view }: CreatedWebhook): Webhook => view;

/**
 * Headers and signatures of one delivery: `webhook-signature` checked with the `standardwebhooks` package,
 * the older X-Signature with the service's verifier and independently.
 */
function expectSigned(delivery: ReceivedDelivery, webhook: CreatedWebhook, type: EventType) {
  expect(delivery.method).toBe('POST');
  // The body is the event catalog's for the type, every field declared (what the OpenAPI document shows).
  const documented = z.strictObject(WEBHOOK_BODY_SCHEMAS[type].shape).safeParse(delivery.json);
  expect(documented.error?.issues ?? []).toEqual([]);
  expect(headerOf(delivery, 'Content-Type')).toMatch(/^application\/json\b/);
  expect(headerOf(delivery, 'X-Webhook-Id')).toBe(webhook.id);
  expect(headerOf(delivery, 'X-Event-Type')).toBe(type);
  expect(headerOf(delivery, 'webhook-id')).toBe(delivery.json.event_id);
  expect(headerOf(delivery, 'X-Event-Id')).toBe(delivery.json.event_id);
  const timestamp = Number(headerOf(delivery, 'webhook-timestamp'));
  expect(timestamp * 1000).toBeLessThanOrEqual(delivery.receivedAt);
  expect(timestamp * 1000).toBeGreaterThan(delivery.receivedAt - MINUTE);
  // One signature per valid secret (two during a rotation).
  expect(headerOf(delivery, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$/);
  expect(standardVerified(webhook.secret, delivery)).toBe(true);
  expect(standardVerified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, delivery)).toBe(false);
  const signature = headerOf(delivery, 'X-Signature') ?? '';
  expect(signature).toMatch(/^t=\d+(,v1=[0-9a-f]{64}){1,2}$/);
  const t = Number(/^t=(\d+)/.exec(signature)?.[1]);
  expect(t).toBeLessThanOrEqual(delivery.receivedAt);
  expect(t).toBeGreaterThan(delivery.receivedAt - MINUTE);
  expect(verifySignature(webhook.secret, signature, delivery.body)).toBe(true);
  expect(independentlyVerified(webhook.secret, signature, delivery.body)).toBe(true);
  // Neither check passes with another secret or with other bytes.
  expect(verifySignature(`${webhook.secret}x`, signature, delivery.body)).toBe(false);
  expect(independentlyVerified(`${webhook.secret}x`, signature, delivery.body)).toBe(false);
  expect(verifySignature(webhook.secret, signature, delivery.body.replace('}', ', "x": 1}'))).toBe(false);
}

const isEvent = (type: string, routeId?: string) => (delivery: ReceivedDelivery) =>
  eventTypeOf(delivery) === type && (routeId === undefined || delivery.json.route_id === routeId);

/** The one delivery of `type` (for the route) at the receiver; waits for it. */
async function arrived(to: WebhookReceiver, type: string, routeId?: string): Promise<ReceivedDelivery> {
  const [delivery] = await to.waitFor(isEvent(type, routeId));
  return delivery as ReceivedDelivery;
}

/** The time the event happened is the time of the action that caused it. */
function expectHookTime(delivery: ReceivedDelivery, actionStartedAt: number) {
  const hookTime = delivery.json.hook_timestamp_millis as number;
  expect(hookTime).toEqual(expect.any(Number));
  expect(hookTime).toBeGreaterThanOrEqual(actionStartedAt);
  expect(hookTime).toBeLessThanOrEqual(delivery.receivedAt);
}

const EXPECTED_EVENT_ID = expect.stringMatching(/\S/);

/** The event items written for a route (read straight from the table), as "<type> <event id>", sorted. */
async function eventItemsOf(accountId: string, routeId: string): Promise<string[]> {
  const { Items = [] } = await db.send(
    new ScanCommand({
      TableName: fx.api.tableName,
      FilterExpression: 'entity = :entity AND account_id = :account AND route_id = :route',
      ExpressionAttributeValues: { ':entity': 'EVENT', ':account': accountId, ':route': routeId },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => `${item.event_type} ${item.event_id}`).sort();
}

/** Waits until every event item of the route so far has reached the receiver (by event id). */
async function waitForRouteEventsDelivered(to: WebhookReceiver, routeId: string) {
  const written = await eventItemsOf(acme.accountId, routeId);
  await waitUntil(`the ${written.length} events of ${routeId} at the receiver`, () => {
    const received = new Set(
      to.deliveries.map((delivery) => `${eventTypeOf(delivery)} ${eventIdOf(delivery)}`),
    );
    return written.every((event) => received.has(event)) ? true : undefined;
  });
}

// ---------------------------------------------------------------------------------------------------
// 1. The API (spec §4.4)
// ---------------------------------------------------------------------------------------------------

describe('the webhooks API', () => {
  let pingReceiver: WebhookReceiver;
  let first: CreatedWebhook;
  let foreign: CreatedWebhook;

  beforeAll(async () => {
    pingReceiver = await receiver();
    // For Globex's other DC, where nothing happens: no delivery ever goes to this host.
    foreign = await createWebhook('https://globex.example.com/hooks', ALL_EVENTS, ['gx-1'], globex.key);
  });

  it('answers 401 with 1001 without a key, on every webhook path', async () => {
    const paths: [string, string, unknown?][] = [
      ['GET', '/webhooks'],
      ['POST', '/webhooks', createBody('https://example.com/hooks')],
      ['PATCH', `/webhooks/${foreign.id}`, { enabled: false }],
      ['PUT', `/webhooks/${foreign.id}`, { enabled: false }],
      ['DELETE', `/webhooks/${foreign.id}`],
      ['GET', `/webhooks/${foreign.id}/deliveries`],
      ['POST', `/webhooks/${foreign.id}/test`],
      ['POST', `/webhooks/${foreign.id}/rotate-secret`, {}],
      ['POST', `/webhooks/${foreign.id}/deliveries/dlv_1/redeliver`],
      ['POST', `/webhooks/${foreign.id}/redeliver`, { since: 0, until: 1, status: 'FAILED' }],
    ];
    for (const [method, path, body] of paths) {
      expectError(await request(method, path, { body }), 401, 1001);
      expectError(await request(method, path, { body, key: 'drs_not-a-key' }), 401, 1001);
    }
    expect(await listWebhooks(globex.key)).toEqual([viewOf(foreign)]);
  });

  it('creates a webhook: enabled, with its DCs and events, and the secret only in this answer', async () => {
    first = await createWebhook(pingReceiver.url, ['ROUTE_CREATED', 'ROUTE_STARTED'], ['dc-1', 'dc-2']);
    expect(first).toEqual({
      id: expect.any(String),
      url: pingReceiver.url,
      enabled: true,
      dc_ids: ['dc-1', 'dc-2'],
      events: ['ROUTE_CREATED', 'ROUTE_STARTED'],
      secret: expect.stringMatching(/^\S{16,}$/),
    });
    const second = await createWebhook('https://example.com/hooks?x=1', ['ROUTE_FINISHED'], ['dc-2']);
    expect(second.id).not.toBe(first.id);
    expect(second.secret).not.toBe(first.secret);
    const listed = await listWebhooks();
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(expect.arrayContaining([viewOf(first), viewOf(second)]));
    for (const webhook of listed) expect(webhook).not.toHaveProperty('secret');
    await asAcme('DELETE', `/webhooks/${second.id}`);
  });

  it('lists only the key’s account’s webhooks', async () => {
    expect((await listWebhooks()).map((webhook) => webhook.id)).toEqual([first.id]);
    expect(await listWebhooks(globex.key)).toEqual([viewOf(foreign)]);
  });

  it('disables with PATCH and enables with PUT, answering the webhook without its secret', async () => {
    const disabled = await setEnabled(first.id, false, 'PATCH');
    expect(disabled).toEqual({ ...viewOf(first), enabled: false });
    expect(await listWebhooks()).toEqual([{ ...viewOf(first), enabled: false }]);
    const enabled = await setEnabled(first.id, true, 'PUT');
    expect(enabled).toEqual(viewOf(first));
    expect(await setEnabled(first.id, true, 'PATCH')).toEqual(viewOf(first));
    expect(await listWebhooks()).toEqual([viewOf(first)]);
  });

  it('refuses to change anything but `enabled` with 1006, saying only `enabled` can change', async () => {
    const bodies = [
      { webhook_url: 'https://example.com/other' },
      { url: 'https://example.com/other' },
      { events: ['ROUTE_FINISHED'] },
      { dc_ids: ['dc-2'] },
      { enabled: false, webhook_url: 'https://example.com/other' },
      { enabled: true, dc_ids: ['dc-1'] },
    ];
    for (const method of ['PATCH', 'PUT']) {
      for (const body of bodies) {
        const message = expectError(await asAcme(method, `/webhooks/${first.id}`, body), 400, 1006);
        expect(message, `${method} ${JSON.stringify(body)}`).toMatch(/only `?enabled`? can/i);
      }
      expectError(await asAcme(method, `/webhooks/${first.id}`, {}), 400, 1006);
      expectError(await asAcme(method, `/webhooks/${first.id}`, { enabled: 'no' }), 400, 1006);
    }
    expect(await listWebhooks()).toEqual([viewOf(first)]);
  });

  it('answers 404 with 1003 for an unknown id and for another account’s webhook', async () => {
    for (const [id, key] of [
      ['wh_doesnotexist', acme.key],
      [foreign.id, acme.key],
      [first.id, globex.key],
    ] as const) {
      const as = (method: string, path: string, body?: unknown) => request(method, path, { key, body });
      expectError(await as('PATCH', `/webhooks/${id}`, { enabled: false }), 404, 1003);
      expectError(await as('PUT', `/webhooks/${id}`, { enabled: false }), 404, 1003);
      expectError(await as('GET', `/webhooks/${id}/deliveries`), 404, 1003);
      expectError(await as('POST', `/webhooks/${id}/test`), 404, 1003);
      expectError(await as('POST', `/webhooks/${id}/rotate-secret`), 404, 1003);
      expectError(await as('POST', `/webhooks/${id}/deliveries/dlv_1/redeliver`), 404, 1003);
      const window = { since: 0, until: Date.now(), status: 'FAILED' };
      expectError(await as('POST', `/webhooks/${id}/redeliver`, window), 404, 1003);
      expectError(await as('DELETE', `/webhooks/${id}`), 404, 1003);
    }
    // Nothing changed for the owners.
    expect(await listWebhooks()).toEqual([viewOf(first)]);
    expect(await listWebhooks(globex.key)).toEqual([viewOf(foreign)]);
  });

  it('rejects a URL that is not a fully formed http(s) URL with 4001', async () => {
    const urls = [
      'example.com/hooks',
      'www.example.com',
      'ftp://example.com/hooks',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'http://',
      'https://',
      '/hooks/relative',
      'hooks',
      '',
      'https://user:pass@example.com/hooks',
      'https://user@example.com/hooks',
    ];
    for (const url of urls) {
      const response = await asAcme('POST', '/webhooks', createBody(url));
      expect(response.body.data, `webhook_url '${url}'`).toMatchObject({ code: 4001 });
      expectError(response, 400, 4001);
    }
    expect(await listWebhooks()).toEqual([viewOf(first)]);
  });

  it('rejects an unknown event type with 4002', async () => {
    for (const events of [['ROUTE_EXPLODED'], ['ROUTE_CREATED', 'ROUTE_EXPLODED'], ['route_created']]) {
      const response = await asAcme('POST', '/webhooks', createBody('https://example.com/hooks', events));
      expectError(response, 400, 4002);
    }
    expect(await listWebhooks()).toEqual([viewOf(first)]);
  });

  it('rejects a DC outside the account with 4003 (HTTP 400)', async () => {
    for (const dcIds of [['dc-9'], ['dc-1', 'gx-1']]) {
      const response = await asAcme(
        'POST',
        '/webhooks',
        createBody('https://example.com/hooks', ALL_EVENTS, dcIds),
      );
      expectError(response, 400, 4003);
    }
    expectError(
      await request('POST', '/webhooks', {
        key: globex.key,
        body: createBody('https://example.com/hooks', ALL_EVENTS, ['dc-2']),
      }),
      400,
      4003,
    );
    expect(await listWebhooks()).toEqual([viewOf(first)]);
  });

  it('rejects empty event or DC lists and missing fields with 1006', async () => {
    const bodies = [
      createBody('https://example.com/hooks', []),
      createBody('https://example.com/hooks', ALL_EVENTS, []),
      { events: ALL_EVENTS, dc_ids: ['dc-1'] },
      { webhook_url: 'https://example.com/hooks', dc_ids: ['dc-1'] },
      { webhook_url: 'https://example.com/hooks', events: ALL_EVENTS },
    ];
    for (const body of bodies) expectError(await asAcme('POST', '/webhooks', body), 400, 1006);
    expect(await listWebhooks()).toEqual([viewOf(first)]);
  });

  it('deletes with 200 {}; then the webhook is gone (404 on every path)', async () => {
    const doomed = await createWebhook('https://example.com/doomed');
    const response = await asAcme('DELETE', `/webhooks/${doomed.id}`);
    expect(expectSuccess(response, webhooks.deleteWebhook)).toEqual({});
    expect(await listWebhooks()).toEqual([viewOf(first)]);
    expectError(await asAcme('DELETE', `/webhooks/${doomed.id}`), 404, 1003);
    expectError(await asAcme('PATCH', `/webhooks/${doomed.id}`, { enabled: true }), 404, 1003);
    expectError(await asAcme('GET', `/webhooks/${doomed.id}/deliveries`), 404, 1003);
    expectError(await asAcme('POST', `/webhooks/${doomed.id}/test`), 404, 1003);
  });

  it('refuses a bad limit or a forged next_token with 1006, naming the field', async () => {
    const path = `/webhooks/${first.id}/deliveries`;
    for (const limit of ['0', '1001', 'x']) {
      expect(expectError(await asAcme('GET', `${path}?limit=${limit}`), 400, 1006)).toContain('query.limit');
    }
    const otherWebhook = Buffer.from(JSON.stringify({ pk: 'WEBHOOK#x/y', sk: '000000000000001#a' }));
    for (const token of ['not-a-token', otherWebhook.toString('base64url')]) {
      const response = await asAcme('GET', `${path}?next_token=${token}`);
      expect(expectError(response, 400, 1006)).toContain('query.next_token');
    }
  });

  it('shows no deliveries for a new webhook', async () => {
    expect(await deliveriesOf(first.id)).toEqual([]);
  });

  it('sends a signed PING on POST /webhooks/{id}/test and logs the attempt', async () => {
    const before = Date.now();
    const eventId = await sendTest(first.id);
    expect(eventId).toEqual(expect.any(String));
    const [ping] = await pingReceiver.waitFor((delivery) => eventIdOf(delivery) === eventId);
    const delivery = ping as ReceivedDelivery;
    expect(delivery.path).toBe('/hooks');
    expect(delivery.json).toMatchObject({ event: 'PING', event_id: eventId });
    expectHookTime(delivery, before);
    expectSigned(delivery, first, 'PING');

    const [attempt] = await waitUntil('the PING’s delivery attempt', async () => {
      const log = await deliveriesOf(first.id);
      return log.length > 0 ? log : undefined;
    });
    expect(attempt).toEqual({
      delivery_id: expect.stringMatching(/^dlv_\d{13}[0-9a-f]{16}$/),
      redelivery_of: null,
      event_id: eventId,
      event_type: 'PING',
      attempt: 1,
      status_code: 200,
      error: null,
      duration_ms: expect.any(Number),
      timestamp: expect.any(Number),
    });
    expect(attempt?.timestamp).toBeGreaterThanOrEqual(before);
    expect(attempt?.timestamp).toBeLessThanOrEqual(delivery.receivedAt);
    expect(attempt?.duration_ms).toBeGreaterThanOrEqual(0);
    // The other account sees none of it.
    expectError(await request('GET', `/webhooks/${first.id}/deliveries`, { key: globex.key }), 404, 1003);
  });

  it('shows the 100 newest attempts, newest first, and the older ones on the next pages', async () => {
    const busy = await receiver();
    const hook = await createWebhook(busy.url, ['ROUTE_FINISHED'], ['dc-2']);
    // Queued by the operator: POST /webhooks/{id}/test is throttled (5/s), and the log is what is tested here.
    const sent: string[] = [];
    for (let i = 0; i < 104; i++) sent.push(await sendTestEvent(acme.accountId, hook.id));
    await busy.waitFor(() => true, 104, 30_000);
    // Every attempt, straight from the table (the log is written just after each POST is answered).
    const everything = await waitUntil('all 104 attempts in the table', async () => {
      const { items: stored } = await listDeliveryAttempts(acme.accountId, hook.id, { limit: 1000 });
      return stored.length >= 104 ? stored : undefined;
    });
    expect(everything).toHaveLength(104);
    const log = await deliveriesOf(hook.id);
    expect(log).toHaveLength(100);
    expect(new Set(log.map((attempt) => attempt.event_id)).size).toBe(100);
    for (const attempt of log) {
      expect(attempt).toMatchObject({ event_type: 'PING', attempt: 1, status_code: 200, error: null });
      expect(sent).toContain(attempt.event_id);
    }
    const times = log.map((attempt) => attempt.timestamp);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The four oldest attempts are the ones left out.
    const newestFirst = [...everything].sort((a, b) => b.timestamp - a.timestamp);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(newestFirst[99]?.timestamp as number);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(newestFirst[100]?.timestamp as number);
    // The default page says more remain; pages of 30 hold every attempt once, newest first.
    const path = `/webhooks/${hook.id}/deliveries`;
    const firstPage = expectSuccess(await asAcme('GET', path), webhooks.listWebhookDeliveries);
    expect((firstPage as { next_token?: string }).next_token).toEqual(expect.any(String));
    const pages = await readAllPages((page) => asAcme('GET', page), path, webhooks.listWebhookDeliveries, {
      limit: '30',
    });
    for (const page of pages) expect((page.deliveries as unknown[]).length).toBeLessThanOrEqual(30);
    const paged = pages.flatMap((page) => page.deliveries as DeliveryAttempt[]);
    expect(paged.map((attempt) => attempt.event_id).sort()).toEqual([...sent].sort());
    const pagedTimes = paged.map((attempt) => attempt.timestamp);
    expect(pagedTimes).toEqual([...pagedTimes].sort((a, b) => b - a));
    await asAcme('DELETE', `/webhooks/${hook.id}`);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------
// 1b. Standard Webhooks signatures, checked as integrators check them, and secret rotation
// ---------------------------------------------------------------------------------------------------

describe('Standard Webhooks signatures and secret rotation', () => {
  let to: WebhookReceiver;
  let hook: CreatedWebhook;

  beforeAll(async () => {
    to = await receiver();
    hook = await createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
  });

  /** Sends a PING to the webhook and waits for it at the receiver. */
  async function ping(id = hook.id): Promise<ReceivedDelivery> {
    const eventId = await sendTest(id);
    const [delivery] = await to.waitFor((received) => eventIdOf(received) === eventId);
    return delivery as ReceivedDelivery;
  }

  const rotate = async (body?: unknown, id = hook.id) => {
    const response = await asAcme('POST', `/webhooks/${id}/rotate-secret`, body);
    return expectSuccess(response, webhooks.rotateWebhookSecret) as {
      webhook_id: string;
      secret: string;
      previous_secret_expires_at: number;
    };
  };

  const signatures = (delivery: ReceivedDelivery) =>
    (headerOf(delivery, 'webhook-signature') ?? '').split(' ');

  it('issues a whsec_ secret of 32 bytes in standard base64, as the libraries read it', () => {
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('delivers what the standardwebhooks package verifies, and it refuses a tampered body, a wrong secret and an old timestamp', async () => {
    const delivery = await ping();
    expectSigned(delivery, hook, 'PING');
    expect(standardVerified(hook.secret, delivery)).toBe(true);
    // Other bytes than those signed.
    expect(standardVerified(hook.secret, { ...delivery, body: delivery.body.replace('PING', 'PONG') })).toBe(
      false,
    );
    expect(standardVerified(hook.secret, { ...delivery, body: `${delivery.body} ` })).toBe(false);
    // Another webhook's secret.
    const other = await createWebhook('https://example.com/other-hooks', ['ROUTE_FINISHED'], ['dc-2']);
    expect(standardVerified(other.secret, delivery)).toBe(false);
    await asAcme('DELETE', `/webhooks/${other.id}`);
    // Another id or timestamp than signed.
    const headers = { ...delivery.headers, 'webhook-id': 'evt_other' };
    expect(standardVerified(hook.secret, { ...delivery, headers })).toBe(false);
    const timestamp = String(Number(headerOf(delivery, 'webhook-timestamp')) + 1);
    expect(
      standardVerified(hook.secret, {
        ...delivery,
        headers: { ...delivery.headers, 'webhook-timestamp': timestamp },
      }),
    ).toBe(false);
    // The same request, checked 6 minutes after it was sent: a replay.
    vi.useFakeTimers({ now: delivery.receivedAt + 6 * MINUTE, toFake: ['Date'] });
    try {
      expect(standardVerified(hook.secret, delivery)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps signing deliveries for webhooks with a secret of the older form, keyed by its own bytes', async () => {
    // A webhook created before this release: its secret as it was issued then (the operator writes it).
    const legacyTo = await receiver();
    const legacy = await createWebhook(legacyTo.url, ['ROUTE_FINISHED'], ['dc-2']);
    const { randomBytes } = await import('node:crypto');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const oldSecret = `whsec_${randomBytes(32).toString('base64url')}`;
    await db.send(
      new UpdateCommand({
        TableName: fx.api.tableName,
        Key: { pk: `ACCOUNT#${acme.accountId}`, sk: `WEBHOOK#${legacy.id}` },
        UpdateExpression: 'SET #secret = :secret',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#secret': 'secret' },
        ExpressionAttributeValues: { ':secret': oldSecret },
      }),
    );
    const eventId = await sendTest(legacy.id);
    const [delivery] = (await legacyTo.waitFor((received) => eventIdOf(received) === eventId)) as [
      ReceivedDelivery,
    ];
    expect(standardVerified(oldSecret, delivery, { format: 'raw' })).toBe(true);
    expect(standardVerified(`whsec_${Buffer.from(oldSecret).toString('base64')}`, delivery)).toBe(true);
    expect(verifySignature(oldSecret, headerOf(delivery, 'X-Signature') ?? '', delivery.body)).toBe(true);
    // Rotating gives it a secret of the standard form.
    const rotated = await rotate({ expire_previous_after_seconds: 0 }, legacy.id);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await asAcme('DELETE', `/webhooks/${legacy.id}`);
  });

  it('rotates the secret: during the grace period deliveries verify with the previous and with the new secret', async () => {
    const before = Date.now();
    const previous = hook.secret;
    const rotated = await rotate();
    expect(rotated).toEqual({
      webhook_id: hook.id,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previous_secret_expires_at: expect.any(Number),
    });
    expect(rotated.secret).not.toBe(previous);
    // The default grace: a day.
    expect(rotated.previous_secret_expires_at).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(rotated.previous_secret_expires_at).toBeLessThanOrEqual(Date.now() + 86_400_000);
    hook = { ...hook, secret: rotated.secret };

    const delivery = await ping();
    expect(signatures(delivery)).toHaveLength(2);
    expect(standardVerified(rotated.secret, delivery)).toBe(true);
    expect(standardVerified(previous, delivery)).toBe(true);
    const legacyHeader = headerOf(delivery, 'X-Signature') ?? '';
    expect(verifySignature(rotated.secret, legacyHeader, delivery.body)).toBe(true);
    expect(verifySignature(previous, legacyHeader, delivery.body)).toBe(true);
    expectSigned(delivery, hook, 'PING');
    // The list never shows a secret.
    for (const listed of await listWebhooks()) expect(listed).not.toHaveProperty('secret');
  });

  it('with expire_previous_after_seconds 0, only the new secret verifies the next delivery', async () => {
    const previous = hook.secret;
    const before = Date.now();
    const rotated = await rotate({ expire_previous_after_seconds: 0 });
    expect(rotated.previous_secret_expires_at).toBeGreaterThanOrEqual(before);
    expect(rotated.previous_secret_expires_at).toBeLessThanOrEqual(Date.now());
    hook = { ...hook, secret: rotated.secret };
    const delivery = await ping();
    expect(signatures(delivery)).toHaveLength(1);
    expect(standardVerified(rotated.secret, delivery)).toBe(true);
    expect(standardVerified(previous, delivery)).toBe(false);
    expect(verifySignature(previous, headerOf(delivery, 'X-Signature') ?? '', delivery.body)).toBe(false);
  });

  it('once the grace period is over, only the new secret verifies', async () => {
    const previous = hook.secret;
    const rotated = await rotate({ expire_previous_after_seconds: 1 });
    hook = { ...hook, secret: rotated.secret };
    // Sent after the previous secret expired.
    await waitUntil('the previous secret to expire', () =>
      Date.now() > rotated.previous_secret_expires_at ? true : undefined,
    );
    const delivery = await ping();
    expect(signatures(delivery)).toHaveLength(1);
    expect(standardVerified(rotated.secret, delivery)).toBe(true);
    expect(standardVerified(previous, delivery)).toBe(false);
  });

  it('refuses a grace period out of 0..604800 whole seconds, or another field, with 1006 naming it', async () => {
    const path = `/webhooks/${hook.id}/rotate-secret`;
    for (const value of [-1, 604_801, 1.5, '60', null]) {
      const message = expectError(
        await asAcme('POST', path, { expire_previous_after_seconds: value }),
        400,
        1006,
      );
      expect(message).toContain('expire_previous_after_seconds');
    }
    expect(expectError(await asAcme('POST', path, { secret: 'whsec_mine' }), 400, 1006)).toContain('secret');
    // Nothing changed: the last secret still signs, alone.
    const delivery = await ping();
    expect(signatures(delivery)).toHaveLength(1);
    expect(standardVerified(hook.secret, delivery)).toBe(true);
  });

  it('rotates only the key’s account’s webhooks: another account’s answers 404 and keeps its secret', async () => {
    const response = await request('POST', `/webhooks/${hook.id}/rotate-secret`, {
      key: globex.key,
      body: {},
    });
    expectError(response, 404, 1003);
    const delivery = await ping();
    expect(standardVerified(hook.secret, delivery)).toBe(true);
    expect(signatures(delivery)).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------
// 1c. Signing secrets at rest: sealed with a KMS data key, bound to their webhook
// ---------------------------------------------------------------------------------------------------

describe('signing secrets at rest', () => {
  let to: WebhookReceiver;
  /** Every secret the API answered in this block: none may show in a stored item or a log line. */
  const issued: string[] = [];

  beforeAll(async () => {
    to = await receiver();
  });

  const keyOf = (id: string) => ({ pk: `ACCOUNT#${acme.accountId}`, sk: `WEBHOOK#${id}` });

  /** The webhook's item as the table holds it, read with the operator's DynamoDB client. */
  async function rawItem(id: string): Promise<Record<string, unknown>> {
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { Item } = await db.send(new GetCommand({ TableName: fx.api.tableName, Key: keyOf(id) }));
    if (!Item) throw new Error(`no item for webhook ${id}`);
    return Item;
  }

  async function setSecret(id: string, secret: unknown): Promise<void> {
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await db.send(
      new UpdateCommand({
        TableName: fx.api.tableName,
        Key: keyOf(id),
        UpdateExpression: 'SET #secret = :secret',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#secret': 'secret' },
        ExpressionAttributeValues: { ':secret': secret },
      }),
    );
  }

  /** Every byte of the item in one string: text as it is, binary values in base64, hex and as text. */
  const itemText = (item: Record<string, unknown>) =>
    JSON.stringify(item, (_key, value) =>
      value instanceof Uint8Array
        ? [
            Buffer.from(value).toString('base64'),
            Buffer.from(value).toString('hex'),
            Buffer.from(value).toString('latin1'),
          ]
        : value,
    );

  /** The forms a secret could be found in: as issued, and its key bytes in base64 and hex. */
  const formsOf = (secret: string) => {
    const keyBytes = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    return [secret, secret.replace(/^whsec_/, ''), keyBytes.toString('hex'), keyBytes.toString('base64url')];
  };

  function expectNoPlainSecret(item: Record<string, unknown>, secrets: readonly string[]) {
    const text = itemText(item);
    for (const secret of secrets) for (const form of formsOf(secret)) expect(text).not.toContain(form);
  }

  const rotate = async (id: string, body: unknown = {}) => {
    const response = await asAcme('POST', `/webhooks/${id}/rotate-secret`, body);
    const rotated = expectSuccess(response, webhooks.rotateWebhookSecret) as { secret: string };
    issued.push(rotated.secret);
    return rotated.secret;
  };

  async function ping(id: string): Promise<ReceivedDelivery> {
    const eventId = await sendTest(id);
    const [delivery] = await to.waitFor((received) => eventIdOf(received) === eventId);
    return delivery as ReceivedDelivery;
  }

  it('stores a new secret sealed (ciphertext, IV, tag, encrypted data key, key ARN), never in plain text', async () => {
    const hook = await createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
    issued.push(hook.secret);
    const item = await rawItem(hook.id);
    expect(item.secret).toEqual({
      v: 1,
      key_id: fx.api.cloud.operatorEnvironment.WEBHOOK_SECRETS_KEY_ARN,
      data_key: expect.any(Uint8Array),
      iv: expect.any(Uint8Array),
      tag: expect.any(Uint8Array),
      ciphertext: expect.any(Uint8Array),
    });
    expect(fx.api.cloud.operatorEnvironment.WEBHOOK_SECRETS_KEY_ARN).toMatch(
      /^arn:aws:kms:us-east-1:\d{12}:key\/[0-9a-f-]{36}$/,
    );
    expectNoPlainSecret(item, [hook.secret]);
    // Deliveries still verify with the secret the API answered once.
    expect(standardVerified(hook.secret, await ping(hook.id))).toBe(true);

    // After a rotation both the new and the kept previous secret are sealed, and both sign.
    const next = await rotate(hook.id);
    const rotatedItem = await rawItem(hook.id);
    expect(rotatedItem.previous_secret).toEqual(item.secret);
    expect(rotatedItem.secret).toMatchObject({ v: 1, ciphertext: expect.any(Uint8Array) });
    expectNoPlainSecret(rotatedItem, [hook.secret, next]);
    const delivery = await ping(hook.id);
    expect(standardVerified(next, delivery)).toBe(true);
    expect(standardVerified(hook.secret, delivery)).toBe(true);
    await asAcme('DELETE', `/webhooks/${hook.id}`);
  });

  it('seals a plain secret of an older webhook when it is rotated, and both go on signing for the grace period', async () => {
    const hook = await createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
    // Stored before secrets were encrypted: the plain string (the operator writes it).
    const plain = `whsec_${randomBytes(32).toString('base64')}`;
    issued.push(plain);
    await setSecret(hook.id, plain);
    expect(standardVerified(plain, await ping(hook.id))).toBe(true);

    const next = await rotate(hook.id, { expire_previous_after_seconds: 3600 });
    const item = await rawItem(hook.id);
    expect(item.secret).toMatchObject({ v: 1 });
    expect(item.previous_secret).toMatchObject({ v: 1 });
    expectNoPlainSecret(item, [plain, next]);
    const delivery = await ping(hook.id);
    expect(standardVerified(next, delivery)).toBe(true);
    expect(standardVerified(plain, delivery)).toBe(true);
    await asAcme('DELETE', `/webhooks/${hook.id}`);
  });

  it('does not open a sealed secret moved to another webhook: that delivery fails at once, generically, and the queue goes on', async () => {
    const source = await createWebhook('https://example.com/source-hooks', ['ROUTE_FINISHED'], ['dc-2']);
    const target = await createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
    // Another URL of the same receiver: one webhook per URL and event type in an account.
    const healthy = await createWebhook(new URL('?healthy', to.url).href, ['ROUTE_FINISHED'], ['dc-2']);
    issued.push(source.secret, target.secret, healthy.secret);
    // Someone with write access to the table copies the source's sealed secret into the target's item.
    await setSecret(target.id, (await rawItem(source.id)).secret);

    const eventId = await sendTest(target.id);
    const [attempt] = await waitUntil('the failed attempt', async () => {
      const log = await deliveriesOf(target.id);
      return log.length > 0 ? log : undefined;
    });
    expect(attempt).toEqual({
      delivery_id: expect.stringMatching(/^dlv_/),
      redelivery_of: null,
      event_id: eventId,
      event_type: 'PING',
      attempt: 1,
      status_code: null,
      error: 'signing secret unreadable; rotate the secret',
      duration_ms: 0,
      timestamp: expect.any(Number),
    });
    const dead = await findInDeliveriesDlq<DeliveryMessage>(
      fx.api,
      (body) => body.webhook_id === target.id && body.event?.event_id === eventId,
    );
    expect(dead).toMatchObject({ webhook_id: target.id, attempt: 1 });
    // The queue goes on: the next delivery, to another webhook, arrives; the failed one was not retried.
    expect(standardVerified(healthy.secret, await ping(healthy.id))).toBe(true);
    expect(await deliveriesOf(target.id)).toHaveLength(1);
    expect(to.deliveries.filter((received) => eventIdOf(received) === eventId)).toEqual([]);
    // The worker logged the failure by ids.
    await waitUntil('the error line', () =>
      fx.api.logs.some((log) => log.line.includes('does not decrypt') && log.line.includes(target.id))
        ? true
        : undefined,
    );

    // A rotation gives the webhook a secret it can open again (the unreadable one is not kept signing).
    const next = await rotate(target.id);
    const delivery = await ping(target.id);
    expect(standardVerified(next, delivery)).toBe(true);
    expect((headerOf(delivery, 'webhook-signature') ?? '').split(' ')).toHaveLength(1);
    for (const hook of [source, target, healthy]) await asAcme('DELETE', `/webhooks/${hook.id}`);
  });

  it('keeps a data key KMS decrypted for minutes in the process, for the same owner only', async () => {
    const { openSecret, sealSecrets, UnreadableSecretError } = await import(
      '../../functions/data/secret-envelope'
    );
    const context = { account_id: acme.accountId, webhook_id: 'wh_cached' };
    const [sealed] = await sealSecrets(['cached-secret'], context);
    if (!sealed) throw new Error('nothing sealed');
    expect(await openSecret(sealed, context)).toBe('cached-secret');
    // While KMS knows no key, every Decrypt fails: an opening that still succeeds asked KMS nothing.
    fx.api.cloud.proxy.configureKeys([]);
    try {
      expect(await openSecret(sealed, context)).toBe('cached-secret');
      await expect(openSecret(sealed, { ...context, webhook_id: 'wh_other' })).rejects.toThrow(
        /NotFound|exist/,
      );
    } finally {
      fx.api.cloud.proxy.configureKeys(fx.api.cloud.deployment.keys);
    }
    // Another owner's context is never answered from the cache: KMS refuses it.
    await expect(openSecret(sealed, { ...context, webhook_id: 'wh_other' })).rejects.toBeInstanceOf(
      UnreadableSecretError,
    );
  });

  it('never writes a secret to a log line', () => {
    expect(issued.length).toBeGreaterThan(0);
    const text = fx.api.logs.map((log) => log.line).join('\n');
    for (const secret of issued) for (const form of formsOf(secret)) expect(text).not.toContain(form);
  });
});

// ---------------------------------------------------------------------------------------------------
// 2. Events through the pipeline
// ---------------------------------------------------------------------------------------------------

describe('route events reach the subscribed receivers, signed', () => {
  const driverId = 'hook-driver';
  const token = 'hook-driver-login-token-01';
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

  async function subscribed(events = ALL_EVENTS, dcIds = ['dc-1'], key = acme.key) {
    const to = await receiver();
    return { receiver: to, webhook: await createWebhook(to.url, events, dcIds, key) };
  }

  const asDriver = (method: string, path: string, body?: unknown) =>
    request(method, path, { key: token, body });

  beforeAll(async () => {
    all = await subscribed();
    dc2 = await subscribed(ALL_EVENTS, ['dc-2']);
    startedOnly = await subscribed(['ROUTE_STARTED']);
    other = await subscribed(ALL_EVENTS, ['dc-1'], globex.key);
    paused = await subscribed();
    deleted = await subscribed();
    expect((await setEnabled(paused.webhook.id, false)).enabled).toBe(false);
    expect(
      expectSuccess(await asAcme('DELETE', `/webhooks/${deleted.webhook.id}`), webhooks.deleteWebhook),
    ).toEqual({});
    const created = await asAcme('POST', '/dcs/dc-1/drivers', {
      driver_id: driverId,
      driver_name: 'Hook Driver',
      login_token: token,
    });
    expectSuccess(created, drivers.createDriver);
  });

  it('ROUTE_CREATED after a route import', async () => {
    const before = Date.now();
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    const delivery = await arrived(all.receiver, 'ROUTE_CREATED', route.id);
    expect(delivery.json).toEqual({
      event: 'ROUTE_CREATED',
      hook_timestamp_millis: expect.any(Number),
      dc_id: 'dc-1',
      route_id: route.id,
      event_id: EXPECTED_EVENT_ID,
      route: expect.objectContaining({ id: route.id }),
    });
    expectHookTime(delivery, before);
    expectSigned(delivery, all.webhook, 'ROUTE_CREATED');
  });

  it('ROUTE_STARTED and ROUTE_ETAS_CHANGED when the driver starts the route', async () => {
    const before = Date.now();
    const response = await asDriver('POST', `/driver/routes/${route.id}/start`, { timestamp: at(70) });
    expect(response.status, response.text).toBe(200);
    const started = await arrived(all.receiver, 'ROUTE_STARTED', route.id);
    expect(started.json).toEqual({
      event: 'ROUTE_STARTED',
      hook_timestamp_millis: expect.any(Number),
      dc_id: 'dc-1',
      route_id: route.id,
      event_id: EXPECTED_EVENT_ID,
      driver_id: driverId,
      started_timestamp: at(70),
    });
    expectHookTime(started, before);
    expectSigned(started, all.webhook, 'ROUTE_STARTED');

    // Started 70 minutes after the planned start: every ETA moves.
    const etas = await arrived(all.receiver, 'ROUTE_ETAS_CHANGED', route.id);
    expect(etas.json).toEqual({
      event: 'ROUTE_ETAS_CHANGED',
      hook_timestamp_millis: expect.any(Number),
      dc_id: 'dc-1',
      route_id: route.id,
      event_id: EXPECTED_EVENT_ID,
      etas: route.waypoints.map((waypoint) => ({
        waypoint_id: waypoint.id,
        eta_timestamp: expect.any(Number),
      })),
    });
    for (const eta of etas.json.etas as { eta_timestamp: number }[]) {
      expect(eta.eta_timestamp).toBeGreaterThanOrEqual(at(70));
    }
    expectHookTime(etas, before);
    expectSigned(etas, all.webhook, 'ROUTE_ETAS_CHANGED');
  });

  it('WAYPOINT_STATUS_CHANGED after an attempt', async () => {
    const before = Date.now();
    const response = await asDriver('POST', `/driver/routes/${route.id}/waypoints/${wp0.id}/attempts`, {
      id: 'hook-visit-0',
      timestamp: at(80),
      status: 'SUCCESSFUL',
      location: wp0.location,
    });
    expect(response.status, response.text).toBe(200);
    const delivery = await arrived(all.receiver, 'WAYPOINT_STATUS_CHANGED', route.id);
    expect(delivery.json).toEqual({
      event: 'WAYPOINT_STATUS_CHANGED',
      hook_timestamp_millis: expect.any(Number),
      dc_id: 'dc-1',
      route_id: route.id,
      event_id: EXPECTED_EVENT_ID,
      waypoint_id: wp0.id,
      status: 'SUCCESSFUL',
      attempt_id: 'hook-visit-0',
      timestamp: at(80),
    });
    expectHookTime(delivery, before);
    expectSigned(delivery, all.webhook, 'WAYPOINT_STATUS_CHANGED');
  });

  it('ROUTE_FINISHED when the driver finishes (and a re-enabled webhook gets it)', async () => {
    // Every event so far (the visit's ETA update included) was fanned out while the webhook was disabled.
    await waitForRouteEventsDelivered(all.receiver, route.id);
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
    expect((await setEnabled(paused.webhook.id, true)).enabled).toBe(true);
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
        acceptImport(acme.accountId, 'dc-1', ImportRoute.parse(body)),
      ),
    );
    const outcomes = await Promise.all(
      txids.map((txid) => waitForImport(fx.api.url, acme.key, 'dc-1', txid)),
    );
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 400]);
    const loserTxid = txids[outcomes.findIndex((outcome) => outcome.status === 400)];
    expectError(outcomes.find((outcome) => outcome.status === 400) as ApiResponse, 400, 3005);

    const failed = await arrived(all.receiver, 'ROUTE_IMPORT_FAILED', raced.id);
    expect(failed.json).toEqual({
      event: 'ROUTE_IMPORT_FAILED',
      hook_timestamp_millis: expect.any(Number),
      dc_id: 'dc-1',
      route_id: raced.id,
      event_id: EXPECTED_EVENT_ID,
      txid: loserTxid,
      error: { code: 3005, message: expect.any(String) },
    });
    expectHookTime(failed, before);
    expectSigned(failed, all.webhook, 'ROUTE_IMPORT_FAILED');
    const created = await arrived(all.receiver, 'ROUTE_CREATED', raced.id);
    expect(created.json.event_id).not.toBe(failed.json.event_id);
  });

  it('delivered every event item of the route to the webhook of all types, each with its id', async () => {
    const written = await eventItemsOf(acme.accountId, route.id);
    expect(written.length).toBeGreaterThanOrEqual(5);
    await waitForRouteEventsDelivered(all.receiver, route.id);
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
    const received = all.receiver.deliveries
      .filter((delivery) => delivery.json.route_id === route.id)
      .map((delivery) => `${eventTypeOf(delivery)} ${eventIdOf(delivery)}`);
    expect([...new Set(received)].sort()).toEqual(written);
  });

  it('sends a webhook of another DC nothing of this DC, and that DC’s events', async () => {
    const dc2Route = exampleRoute('hook-dc2', { waypoints: 1 });
    dc2RouteId = dc2Route.id;
    await importRoute(fx.api.url, acme.key, 'dc-2', dc2Route);
    const delivery = await arrived(dc2.receiver, 'ROUTE_CREATED', dc2Route.id);
    expect(delivery.json).toMatchObject({ dc_id: 'dc-2', route_id: dc2Route.id });
    expectSigned(delivery, dc2.webhook, 'ROUTE_CREATED');
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
    expect(dc2.receiver.deliveries.map((d) => [eventTypeOf(d), d.json.dc_id, d.json.route_id])).toEqual([
      ['ROUTE_CREATED', 'dc-2', dc2Route.id],
    ]);
    // And the dc-1 webhooks got nothing of dc-2.
    for (const to of [all, startedOnly, paused]) {
      expect(to.receiver.deliveries.filter((d) => d.json.dc_id !== 'dc-1')).toEqual([]);
    }
  });

  it('sends a webhook of one event type only that type', async () => {
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
    const got = startedOnly.receiver.deliveries;
    expect(got.map((delivery) => [eventTypeOf(delivery), delivery.json.route_id])).toEqual([
      ['ROUTE_STARTED', route.id],
    ]);
    expect(got[0]?.json).toEqual((await arrived(all.receiver, 'ROUTE_STARTED', route.id)).json);
    expectSigned(got[0] as ReceivedDelivery, startedOnly.webhook, 'ROUTE_STARTED');
  });

  it('never sends another account’s webhook this account’s events, but its own', async () => {
    // Globex imports a route with the same id into its own dc-1.
    await importRoute(fx.api.url, globex.key, 'dc-1', exampleRoute(route.id, { waypoints: 1 }));
    const own = await arrived(other.receiver, 'ROUTE_CREATED', route.id);
    globexEventId = eventIdOf(own) as string;
    expectSigned(own, other.webhook, 'ROUTE_CREATED');
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
    expect(other.receiver.deliveries.map(eventIdOf)).toEqual([globexEventId]);
    // Nor the other way round.
    expect(all.receiver.deliveries.map(eventIdOf)).not.toContain(globexEventId);
  });

  it('sends a disabled webhook nothing, and after it is enabled again only what happened since', async () => {
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
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
    await waitForQueuesDrained(fx.api, ['events', 'deliveries']);
    expect(all.receiver.deliveries.length).toBeGreaterThan(5);
    expect(deleted.receiver.deliveries).toEqual([]);
    expect(dc2RouteId).not.toBe('');
  });

  it('logged each delivery of the webhook, newest first', async () => {
    const log = await deliveriesOf(all.webhook.id);
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

// ---------------------------------------------------------------------------------------------------
// 3. The SSRF guard (on in production, off in the local runtime): the delivery domain with the guard on
// ---------------------------------------------------------------------------------------------------

describe('the SSRF guard refuses private targets', () => {
  let target: WebhookReceiver;

  beforeAll(async () => {
    target = await receiver();
  });

  const guarded = () => ({ ...webhookEvents.deliverySettings(), allowPrivateTargets: false });

  function messageFor(webhook: CreatedWebhook, eventId: string): DeliveryMessage {
    return {
      account_id: acme.accountId,
      webhook_id: webhook.id,
      event: {
        event_id: eventId,
        type: 'ROUTE_CREATED',
        dc_id: 'dc-1',
        route_id: 'ssrf-route',
        occurred_at: Date.now(),
        details: exampleEvent('ROUTE_CREATED').details,
      },
      attempt: 1,
    };
  }

  /** Runs `action` while recording everything written to stdout and stderr (the logger writes JSON lines there). */
  async function capturingLogs<T>(action: () => Promise<T>): Promise<{ result: T; logs: string }> {
    const chunks: string[] = [];
    const record = (chunk: unknown) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    };
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    out.mockImplementation((chunk: unknown) => {
      record(chunk);
      return true;
    });
    err.mockImplementation((chunk: unknown) => {
      record(chunk);
      return true;
    });
    try {
      return { result: await action(), logs: chunks.join('') };
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  }

  const targets = [
    ['loopback IPv4', (port: number) => `http://127.0.0.1:${port}/hooks`],
    ['loopback IPv6', (port: number) => `http://[::1]:${port}/hooks`],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data'],
    ['a private network address', () => 'http://10.0.0.1/hooks'],
    ['localhost (resolved at connect time)', (port: number) => `http://localhost:${port}/hooks`],
  ] as const;

  it.each(targets)('refuses %s: given up at once, to the DLQ, logged', async (_name, urlOf) => {
    const webhook = await createWebhook(urlOf(target.port));
    const eventId = `evt_ssrf_${webhook.id}`;
    const { result, logs } = await capturingLogs(() =>
      webhookEvents.deliver(messageFor(webhook, eventId), guarded()),
    );
    expect(result).toBe('given_up');
    expect(target.deliveries).toEqual([]);

    const refusal = logs.split('\n').find((line) => line.includes(webhook.id) && /refused/i.test(line));
    expect(refusal, `no log line about the refusal in:\n${logs}`).toBeDefined();
    expect(refusal).toContain(eventId);

    const log = await deliveriesOf(webhook.id);
    expect(log).toEqual([
      {
        delivery_id: expect.stringMatching(/^dlv_/),
        redelivery_of: null,
        event_id: eventId,
        event_type: 'ROUTE_CREATED',
        attempt: 1,
        status_code: null,
        error: expect.stringMatching(/refused/i),
        duration_ms: expect.any(Number),
        timestamp: expect.any(Number),
      },
    ]);
    const dead = await findInDeliveriesDlq<DeliveryMessage>(
      fx.api,
      (body) => body.webhook_id === webhook.id && body.event?.event_id === eventId,
    );
    expect(dead).toMatchObject({ account_id: acme.accountId, webhook_id: webhook.id, attempt: 1 });
    // A refusal is not a reason to keep trying: the webhook stays as it was.
    expect((await listWebhooks()).find((listed) => listed.id === webhook.id)?.enabled).toBe(true);
    await asAcme('DELETE', `/webhooks/${webhook.id}`);
  });

  it('delivers to the same loopback receiver when private targets are allowed (the guard is what refused)', async () => {
    const webhook = await createWebhook(target.url);
    const eventId = `evt_allowed_${webhook.id}`;
    const outcome = await webhookEvents.deliver(messageFor(webhook, eventId), {
      ...webhookEvents.deliverySettings(),
      allowPrivateTargets: true,
    });
    expect(outcome).toBe('delivered');
    const [delivery] = await target.waitFor((d) => eventIdOf(d) === eventId);
    expectSigned(delivery as ReceivedDelivery, webhook, 'ROUTE_CREATED');
    expect(target.deliveries).toHaveLength(1);
    await asAcme('DELETE', `/webhooks/${webhook.id}`);
  });
});
