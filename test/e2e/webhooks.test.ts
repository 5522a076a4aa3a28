import { beforeAll, describe, expect, it } from 'vitest';
import * as webhooks from '../../functions/api/webhooks/index';
import { getDelivery, listDeliveryAttempts } from '../../functions/data/webhook-deliveries';
import * as webhookEvents from '../../functions/domain/webhook-events';
import { sendTestEvent } from '../../functions/domain/webhooks';
import type { DeliveryMessage } from '../../functions/models/channels';
import { exampleEvent } from '../../functions/models/event-docs';
import { expectError, expectSuccess, readAllPages } from '../support/http';
import {
  eventIdOf,
  messagesHeld,
  type ReceivedDelivery,
  type WebhookReceiver,
  waitUntil,
} from '../support/webhook-receiver';
import {
  ALL_EVENTS,
  type CreatedWebhook,
  capturingLogs,
  createBody,
  type DeliveryAttempt,
  expectHookTime,
  expectSigned,
  firstPingAttempt,
  useWebhookApi,
  viewOf,
} from '../support/webhooks';

/**
 * The webhooks API of spec §4.4 (and its deliveries/test extras), then the SSRF guard, which the local runtime
 * turns off, called in-process with the guard on. Signatures and secrets: webhook-secrets.test.ts; events
 * through the pipeline: webhook-events.test.ts.
 */

const hooks = useWebhookApi('webhooks');

// ---------------------------------------------------------------------------------------------------
// 1. The API (spec §4.4)
// ---------------------------------------------------------------------------------------------------

describe('the webhooks API', () => {
  let pingReceiver: WebhookReceiver;
  let first: CreatedWebhook;
  let foreign: CreatedWebhook;

  beforeAll(async () => {
    pingReceiver = await hooks.receiver();
    // For Globex's other DC, where nothing happens: no delivery ever goes to this host.
    foreign = await hooks.createWebhook(
      'https://globex.example.com/hooks',
      ALL_EVENTS,
      ['gx-1'],
      hooks.accounts.globex.key,
    );
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
      expectError(await hooks.request(method, path, { body }), 401, 1001);
      expectError(await hooks.request(method, path, { body, key: 'drs_not-a-key' }), 401, 1001);
    }
    expect(await hooks.listWebhooks(hooks.accounts.globex.key)).toEqual([viewOf(foreign)]);
  });

  it('creates a webhook: enabled, with its DCs and events, and the secret only in this answer', async () => {
    first = await hooks.createWebhook(pingReceiver.url, ['ROUTE_CREATED', 'ROUTE_STARTED'], ['dc-1', 'dc-2']);
    expect(first).toEqual({
      id: expect.any(String),
      url: pingReceiver.url,
      enabled: true,
      dc_ids: ['dc-1', 'dc-2'],
      events: ['ROUTE_CREATED', 'ROUTE_STARTED'],
      secret: expect.stringMatching(/^\S{16,}$/),
    });
    const second = await hooks.createWebhook('https://example.com/hooks?x=1', ['ROUTE_FINISHED'], ['dc-2']);
    expect(second.id).not.toBe(first.id);
    expect(second.secret).not.toBe(first.secret);
    const listed = await hooks.listWebhooks();
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(expect.arrayContaining([viewOf(first), viewOf(second)]));
    for (const webhook of listed) expect(webhook).not.toHaveProperty('secret');
    await hooks.asAccount('DELETE', `/webhooks/${second.id}`);
  });

  it('lists only the key’s account’s webhooks', async () => {
    expect((await hooks.listWebhooks()).map((webhook) => webhook.id)).toEqual([first.id]);
    expect(await hooks.listWebhooks(hooks.accounts.globex.key)).toEqual([viewOf(foreign)]);
  });

  it('disables with PATCH and enables with PUT, answering the webhook without its secret', async () => {
    const disabled = await hooks.setEnabled(first.id, false, 'PATCH');
    expect(disabled).toEqual({ ...viewOf(first), enabled: false });
    expect(await hooks.listWebhooks()).toEqual([{ ...viewOf(first), enabled: false }]);
    const enabled = await hooks.setEnabled(first.id, true, 'PUT');
    expect(enabled).toEqual(viewOf(first));
    expect(await hooks.setEnabled(first.id, true, 'PATCH')).toEqual(viewOf(first));
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
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
        const message = expectError(await hooks.asAccount(method, `/webhooks/${first.id}`, body), 400, 1006);
        expect(message, `${method} ${JSON.stringify(body)}`).toMatch(/only `?enabled`? can/i);
      }
      expectError(await hooks.asAccount(method, `/webhooks/${first.id}`, {}), 400, 1006);
      expectError(await hooks.asAccount(method, `/webhooks/${first.id}`, { enabled: 'no' }), 400, 1006);
    }
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
  });

  it('answers 404 with 1003 for an unknown id and for another account’s webhook', async () => {
    for (const [id, key] of [
      ['wh_doesnotexist', hooks.accounts.acme.key],
      [foreign.id, hooks.accounts.acme.key],
      [first.id, hooks.accounts.globex.key],
    ] as const) {
      const as = (method: string, path: string, body?: unknown) => hooks.request(method, path, { key, body });
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
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
    expect(await hooks.listWebhooks(hooks.accounts.globex.key)).toEqual([viewOf(foreign)]);
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
      const response = await hooks.asAccount('POST', '/webhooks', createBody(url));
      expect(response.body.data, `webhook_url '${url}'`).toMatchObject({ code: 4001 });
      expectError(response, 400, 4001);
    }
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
  });

  it('rejects an unknown event type with 4002', async () => {
    for (const events of [['ROUTE_EXPLODED'], ['ROUTE_CREATED', 'ROUTE_EXPLODED'], ['route_created']]) {
      const response = await hooks.asAccount(
        'POST',
        '/webhooks',
        createBody('https://example.com/hooks', events),
      );
      expectError(response, 400, 4002);
    }
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
  });

  it('rejects a DC outside the account with 4003 (HTTP 400)', async () => {
    for (const dcIds of [['dc-9'], ['dc-1', 'gx-1']]) {
      const response = await hooks.asAccount(
        'POST',
        '/webhooks',
        createBody('https://example.com/hooks', ALL_EVENTS, dcIds),
      );
      expectError(response, 400, 4003);
    }
    expectError(
      await hooks.request('POST', '/webhooks', {
        key: hooks.accounts.globex.key,
        body: createBody('https://example.com/hooks', ALL_EVENTS, ['dc-2']),
      }),
      400,
      4003,
    );
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
  });

  it('rejects empty event or DC lists and missing fields with 1006', async () => {
    const bodies = [
      createBody('https://example.com/hooks', []),
      createBody('https://example.com/hooks', ALL_EVENTS, []),
      { events: ALL_EVENTS, dc_ids: ['dc-1'] },
      { webhook_url: 'https://example.com/hooks', dc_ids: ['dc-1'] },
      { webhook_url: 'https://example.com/hooks', events: ALL_EVENTS },
    ];
    for (const body of bodies) expectError(await hooks.asAccount('POST', '/webhooks', body), 400, 1006);
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
  });

  it('deletes with 200 {}; then the webhook is gone (404 on every path)', async () => {
    const doomed = await hooks.createWebhook('https://example.com/doomed');
    const response = await hooks.asAccount('DELETE', `/webhooks/${doomed.id}`);
    expect(expectSuccess(response, webhooks.deleteWebhook)).toEqual({});
    expect(await hooks.listWebhooks()).toEqual([viewOf(first)]);
    expectError(await hooks.asAccount('DELETE', `/webhooks/${doomed.id}`), 404, 1003);
    expectError(await hooks.asAccount('PATCH', `/webhooks/${doomed.id}`, { enabled: true }), 404, 1003);
    expectError(await hooks.asAccount('GET', `/webhooks/${doomed.id}/deliveries`), 404, 1003);
    expectError(await hooks.asAccount('POST', `/webhooks/${doomed.id}/test`), 404, 1003);
  });

  it('refuses a bad limit or a forged next_token with 1006, naming the field', async () => {
    const path = `/webhooks/${first.id}/deliveries`;
    for (const limit of ['0', '1001', 'x']) {
      expect(expectError(await hooks.asAccount('GET', `${path}?limit=${limit}`), 400, 1006)).toContain(
        'query.limit',
      );
    }
    const otherWebhook = Buffer.from(JSON.stringify({ pk: 'WEBHOOK#x/y', sk: '000000000000001#a' }));
    for (const token of ['not-a-token', otherWebhook.toString('base64url')]) {
      const response = await hooks.asAccount('GET', `${path}?next_token=${token}`);
      expect(expectError(response, 400, 1006)).toContain('query.next_token');
    }
  });

  it('shows no deliveries for a new webhook', async () => {
    expect(await hooks.deliveriesOf(first.id)).toEqual([]);
  });

  it('sends a signed PING on POST /webhooks/{id}/test and logs the attempt', async () => {
    const before = Date.now();
    const eventId = await hooks.sendTest(first.id);
    expect(eventId).toEqual(expect.any(String));
    const [ping] = await pingReceiver.waitFor((delivery) => eventIdOf(delivery) === eventId);
    const delivery = ping as ReceivedDelivery;
    expect(delivery.path).toBe('/hooks');
    expect(delivery.json).toMatchObject({ event: 'PING', event_id: eventId });
    expectHookTime(delivery, before);
    expectSigned(delivery, first, 'PING');

    const attempt = await hooks.newestAttempt(first.id);
    expect(attempt).toEqual(
      firstPingAttempt(eventId, { status_code: 200, error: null, duration_ms: expect.any(Number) }),
    );
    expect(attempt.delivery_id).toMatch(/^dlv_\d{13}[0-9a-f]{16}$/);
    expect(attempt?.timestamp).toBeGreaterThanOrEqual(before);
    expect(attempt?.timestamp).toBeLessThanOrEqual(delivery.receivedAt);
    expect(attempt?.duration_ms).toBeGreaterThanOrEqual(0);
    // The other account sees none of it.
    expectError(
      await hooks.request('GET', `/webhooks/${first.id}/deliveries`, { key: hooks.accounts.globex.key }),
      404,
      1003,
    );
  });

  it('shows the 100 newest attempts, newest first, and the older ones on the next pages', async () => {
    const busy = await hooks.receiver();
    const hook = await hooks.createWebhook(busy.url, ['ROUTE_FINISHED'], ['dc-2']);
    // Queued by the operator: POST /webhooks/{id}/test is throttled (5/s), and the log is what is tested here.
    const sent: string[] = [];
    for (let i = 0; i < 104; i++) sent.push(await sendTestEvent(hooks.accounts.acme.accountId, hook.id));
    await busy.waitFor(() => true, 104, 30_000);
    // Every attempt, straight from the table (the log is written just after each POST is answered).
    const everything = await waitUntil('all 104 attempts in the table', async () => {
      const { items: stored } = await listDeliveryAttempts(hooks.accounts.acme.accountId, hook.id, {
        limit: 1000,
      });
      return stored.length >= 104 ? stored : undefined;
    });
    expect(everything).toHaveLength(104);
    const log = await hooks.deliveriesOf(hook.id);
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
    const firstPage = expectSuccess(await hooks.asAccount('GET', path), webhooks.listWebhookDeliveries);
    expect((firstPage as { next_token?: string }).next_token).toEqual(expect.any(String));
    const pages = await readAllPages(
      (page) => hooks.asAccount('GET', page),
      path,
      webhooks.listWebhookDeliveries,
      {
        limit: '30',
      },
    );
    for (const page of pages) expect((page.deliveries as unknown[]).length).toBeLessThanOrEqual(30);
    const paged = pages.flatMap((page) => page.deliveries as DeliveryAttempt[]);
    expect(paged.map((attempt) => attempt.event_id).sort()).toEqual([...sent].sort());
    const pagedTimes = paged.map((attempt) => attempt.timestamp);
    expect(pagedTimes).toEqual([...pagedTimes].sort((a, b) => b - a));
    await hooks.asAccount('DELETE', `/webhooks/${hook.id}`);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------
// 3. The SSRF guard (on in production, off in the local runtime): the delivery domain with the guard on
// ---------------------------------------------------------------------------------------------------

describe('the SSRF guard refuses private targets', () => {
  let target: WebhookReceiver;

  beforeAll(async () => {
    target = await hooks.receiver();
  });

  const guarded = () => ({ ...webhookEvents.deliverySettings(), allowPrivateTargets: false });

  function messageFor(webhook: CreatedWebhook, eventId: string): DeliveryMessage {
    return {
      account_id: hooks.accounts.acme.accountId,
      webhook_id: webhook.id,
      event: {
        event_id: eventId,
        type: 'ROUTE_CREATED',
        dc_id: 'dc-1',
        route_id: 'ssrf-route',
        sequence: 1,
        occurred_at: Date.now(),
        details: exampleEvent('ROUTE_CREATED').details,
      },
      attempt: 1,
    };
  }
  const targets = [
    ['loopback IPv4', (port: number) => `http://127.0.0.1:${port}/hooks`],
    ['loopback IPv6', (port: number) => `http://[::1]:${port}/hooks`],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data'],
    ['a private network address', () => 'http://10.0.0.1/hooks'],
    ['localhost (resolved at connect time)', (port: number) => `http://localhost:${port}/hooks`],
  ] as const;

  it.each(targets)(
    'refuses %s: FAILED at once with the reason in its log, no DLQ message, no error line',
    async (_name, urlOf) => {
      const webhook = await hooks.createWebhook(urlOf(target.port));
      const eventId = `evt_ssrf_${webhook.id}`;
      const { result, logs } = await capturingLogs(() =>
        webhookEvents.deliver(messageFor(webhook, eventId), guarded()),
      );
      expect(result).toBe('refused');
      expect(target.deliveries).toEqual([]);
      // The tenant's URL is at fault: nothing pages the operator (the WARN line is checked in webhook-ssrf-guard).
      expect(logs.split('\n').filter((line) => line.includes('"level":"ERROR"'))).toEqual([]);

      const log = await hooks.deliveriesOf(webhook.id);
      expect(log).toEqual([
        {
          delivery_id: expect.stringMatching(/^dlv_/),
          redelivery_of: null,
          event_id: eventId,
          event_type: 'ROUTE_CREATED',
          attempt: 1,
          status_code: null,
          error: expect.stringMatching(/^refused: /),
          duration_ms: expect.any(Number),
          timestamp: expect.any(Number),
        },
      ]);
      const delivery = await getDelivery(
        hooks.accounts.acme.accountId,
        webhook.id,
        log[0]?.delivery_id as string,
      );
      expect(delivery).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/^refused: /) });
      expect(await messagesHeld(hooks.fx.api.resources.dlqUrls.deliveries)).toBe(0);
      // A refusal is not a reason to keep trying: the webhook stays as it was.
      expect((await hooks.listWebhooks()).find((listed) => listed.id === webhook.id)?.enabled).toBe(true);
      await hooks.asAccount('DELETE', `/webhooks/${webhook.id}`);
    },
  );

  it('delivers to the same loopback receiver when private targets are allowed (the guard is what refused)', async () => {
    const webhook = await hooks.createWebhook(target.url);
    const eventId = `evt_allowed_${webhook.id}`;
    const outcome = await webhookEvents.deliver(messageFor(webhook, eventId), {
      ...webhookEvents.deliverySettings(),
      allowPrivateTargets: true,
    });
    expect(outcome).toBe('delivered');
    const [delivery] = await target.waitFor((d) => eventIdOf(d) === eventId);
    expectSigned(delivery as ReceivedDelivery, webhook, 'ROUTE_CREATED');
    expect(target.deliveries).toHaveLength(1);
    await hooks.asAccount('DELETE', `/webhooks/${webhook.id}`);
  });
});
