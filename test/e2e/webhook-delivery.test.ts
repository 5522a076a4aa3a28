import { describe, expect, it } from 'vitest';
import * as webhooks from '../../functions/api/webhooks/index';
import { getDelivery } from '../../functions/data/webhook-deliveries';
import { expectError, expectSuccess } from '../support/http';
import { exampleRoute, importRoute } from '../support/routes';
import {
  DISABLE_AFTER_SECONDS,
  RETRY_DELAYS_SECONDS,
  TIMEOUT_MS,
  useDeliveryApi,
} from '../support/webhook-delivery';
import {
  eventIdOf,
  messagesHeld,
  type ReceivedDelivery,
  sleep,
  waitForQueuesDrained,
  waitUntil,
} from '../support/webhook-receiver';
import type { Webhook } from '../support/webhooks';

/**
 * Webhook delivery when receivers fail: retries on the schedule, timeouts, FAILED at the end of the
 * schedule, auto-disable, and webhooks disabled or deleted while a retry waits (the settings of the
 * delivery consumer for these tests: test/support/webhook-delivery.ts). Redelivery: webhook-redelivery.test.ts.
 */
const hooks = useDeliveryApi('webhook-delivery');
const { acme } = hooks;

// ---------------------------------------------------------------------------------------------------
// Retries
// ---------------------------------------------------------------------------------------------------

describe('retries', () => {
  it('redelivers an event its receiver failed twice (HTTP 500): same event id, same body, attempts 1 to 3 logged', async () => {
    const { receiver, webhook } = await hooks.hookedReceiver(
      (_delivery, nth) => (nth <= 2 ? 500 : 204),
      ['ROUTE_CREATED'],
      ['dc-1'],
    );
    const route = exampleRoute('retry-1', { waypoints: 1 });
    await importRoute(hooks.fx.api.url, acme.key, 'dc-1', route);

    const deliveries = await receiver.waitFor((delivery) => delivery.json.route_id === route.id, 3);
    const eventId = eventIdOf(deliveries[0] as ReceivedDelivery) as string;
    expect(deliveries[0]?.json).toMatchObject({ event: 'ROUTE_CREATED', dc_id: 'dc-1', route_id: route.id });
    hooks.expectSameEvent(deliveries, webhook, eventId);
    hooks.expectRetryGaps(deliveries);

    const log = await hooks.loggedAttempts(webhook.id, 3);
    const deliveryId = log[0]?.delivery_id;
    expect(deliveryId).toMatch(/^dlv_/);
    const attempt = (n: number, statusCode: number, error: unknown) => ({
      delivery_id: deliveryId,
      redelivery_of: null,
      event_id: eventId,
      event_type: 'ROUTE_CREATED',
      attempt: n,
      status_code: statusCode,
      error,
      duration_ms: expect.any(Number),
      timestamp: expect.any(Number),
    });
    // Newest first.
    expect(log).toEqual([
      attempt(3, 204, null),
      attempt(2, 500, hooks.isHttp500),
      attempt(1, 500, hooks.isHttp500),
    ]);
    await waitForQueuesDrained(hooks.fx.api, ['events', 'deliveries']);
    expect(receiver.deliveries).toHaveLength(3);
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(true);
  });

  it(`retries a receiver that does not answer within WEBHOOK_TIMEOUT_MS (${TIMEOUT_MS} ms) instead of losing the event`, async () => {
    const { receiver, webhook } = await hooks.hookedReceiver((_delivery, nth) => (nth === 1 ? 'hang' : 200));
    const eventId = await hooks.sendTest(webhook.id);

    const deliveries = await receiver.waitFor((delivery) => eventIdOf(delivery) === eventId, 2);
    hooks.expectSameEvent(deliveries, webhook, eventId);
    const [first, second] = deliveries as [ReceivedDelivery, ReceivedDelivery];
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(TIMEOUT_MS + 1000 - 100);

    const [succeeded, timedOut] = await hooks.loggedAttempts(webhook.id, 2);
    expect(succeeded).toMatchObject({ event_id: eventId, attempt: 2, status_code: 200, error: null });
    expect(timedOut).toMatchObject({
      event_id: eventId,
      event_type: 'PING',
      attempt: 1,
      status_code: null,
      error: expect.stringMatching(/time/i),
    });
    expect(timedOut?.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(timedOut?.duration_ms).toBeLessThan(TIMEOUT_MS + 2000);
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(2);
  });

  it('gives up after the schedule (3 attempts): the delivery ends FAILED with a warning, nothing in the DLQ, every attempt is logged', async () => {
    const { receiver, webhook } = await hooks.hookedReceiver(() => 500);
    const logs = hooks.capturedLogs();
    const eventId = await hooks.sendTest(webhook.id);
    await waitUntil('a warning about the delivery given up', async () =>
      logs().find(
        (line) =>
          line.includes(eventId) &&
          line.includes(webhook.id) &&
          line.includes('"level":"WARN"') &&
          /given up/i.test(line),
      ),
    );
    // The receiver's failures are the tenant's to see and redeliver, not the operator's to be paged for.
    expect(logs().filter((line) => line.includes(webhook.id) && line.includes('"level":"ERROR"'))).toEqual(
      [],
    );

    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(await messagesHeld(hooks.fx.api.resources.dlqUrls.deliveries)).toBe(0);
    const deliveries = receiver.deliveries;
    expect(deliveries).toHaveLength(3);
    hooks.expectSameEvent(deliveries, webhook, eventId);
    hooks.expectRetryGaps(deliveries);
    const log = await hooks.loggedAttempts(webhook.id, 3);
    expect(log.map((attempt) => [attempt.attempt, attempt.status_code, attempt.event_id])).toEqual([
      [3, 500, eventId],
      [2, 500, eventId],
      [1, 500, eventId],
    ]);
    for (const attempt of log) expect(attempt.error).toEqual(hooks.isHttp500);
    const deliveryId = log[0]?.delivery_id as string;
    expect(await getDelivery(acme.accountId, webhook.id, deliveryId)).toMatchObject({ status: 'FAILED' });
    // Three attempts in a few seconds: not yet long enough to disable the webhook.
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------
// Disabled and deleted webhooks
// ---------------------------------------------------------------------------------------------------

describe('disabled and deleted webhooks', () => {
  it(`disables a webhook whose deliveries failed continuously for ${DISABLE_AFTER_SECONDS} s; enabling it starts afresh`, async () => {
    const { receiver, webhook } = await hooks.hookedReceiver(() => 500);
    // A first event fails its three attempts within a few seconds and is given up.
    const firstEvent = await hooks.sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === firstEvent, 3);
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(true);

    // The next failure after the webhook has been failing for DISABLE_AFTER_SECONDS disables it.
    const failingSince = (receiver.deliveries[0] as ReceivedDelivery).receivedAt;
    await sleep(Math.max(0, failingSince + DISABLE_AFTER_SECONDS * 1000 + 300 - Date.now()));
    const secondEvent = await hooks.sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === secondEvent);
    const disabled = await waitUntil('the webhook disabled', async () => {
      const listed = await hooks.getWebhook(webhook.id);
      return listed?.enabled === false ? listed : undefined;
    });
    expect(disabled).toEqual({
      id: webhook.id,
      url: webhook.url,
      enabled: false,
      dc_ids: webhook.dc_ids,
      events: webhook.events,
    });
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    // Disabled at that failure: no retry of the second event.
    expect(receiver.deliveries.filter((delivery) => eventIdOf(delivery) === secondEvent)).toHaveLength(1);
    const log = await hooks.loggedAttempts(webhook.id, 4);
    expect(log.map((attempt) => [attempt.event_id, attempt.attempt, attempt.status_code])).toEqual([
      [secondEvent, 1, 500],
      [firstEvent, 3, 500],
      [firstEvent, 2, 500],
      [firstEvent, 1, 500],
    ]);

    // Nothing goes to a disabled webhook.
    await hooks.sendTest(webhook.id);
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(4);

    // Enabled again, the failure run starts afresh: a new failure does not disable it at once.
    const response = await hooks.asAcme('PATCH', `/webhooks/${webhook.id}`, { enabled: true });
    expect((expectSuccess(response, webhooks.updateWebhook) as { webhook: Webhook }).webhook.enabled).toBe(
      true,
    );
    const thirdEvent = await hooks.sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === thirdEvent, 3);
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(true);
    expect(receiver.deliveries).toHaveLength(7);
  }, 45_000);

  it(`keeps a webhook enabled whose failures span ${DISABLE_AFTER_SECONDS} s but a success came between them`, async () => {
    const answer = { status: 500 };
    const { receiver, webhook } = await hooks.hookedReceiver(() => answer.status);
    await hooks.failedPings(webhook.id, receiver, 1);
    const firstFailure = (receiver.deliveries[0] as ReceivedDelivery).receivedAt;

    // One success ends the run the first event's failures started.
    answer.status = 204;
    const deliveredEvent = await hooks.sendTest(webhook.id);
    await receiver.waitFor((delivery) => eventIdOf(delivery) === deliveredEvent);
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);

    // Failing again past DISABLE_AFTER_SECONDS after the first failure: a new run, too young to disable.
    answer.status = 500;
    await sleep(Math.max(0, firstFailure + DISABLE_AFTER_SECONDS * 1000 + 300 - Date.now()));
    await hooks.failedPings(webhook.id, receiver, 1);
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(true);
    expect(receiver.deliveries).toHaveLength(7);
  }, 45_000);

  it('sends nothing more to a webhook disabled while a delivery waits for its retry', async () => {
    // Disabled before the first attempt is even answered: the retry is queued for a disabled webhook.
    const { receiver, webhook, eventId } = await changedWhileRetryWaits(async (webhookId) => {
      const response = await hooks.asAcme('PATCH', `/webhooks/${webhookId}`, { enabled: false });
      expect(response.status, response.text).toBe(200);
    });
    const [attempt] = await hooks.loggedAttempts(webhook.id, 1);
    expect(attempt).toMatchObject({ event_id: eventId, attempt: 1, status_code: 500 });
    // The retry (due a second later) has been taken off the queue and dropped.
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(1);
    expect(await hooks.deliveriesOf(webhook.id)).toHaveLength(1);
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(false);
  });

  it('sends nothing more to a webhook deleted while a delivery waits for its retry', async () => {
    const { receiver, webhook } = await changedWhileRetryWaits(async (webhookId) => {
      const response = await hooks.asAcme('DELETE', `/webhooks/${webhookId}`);
      expect(response.status, response.text).toBe(200);
    });
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(receiver.deliveries).toHaveLength(1);
    expect(await hooks.getWebhook(webhook.id)).toBeUndefined();
    expectError(await hooks.asAcme('GET', `/webhooks/${webhook.id}/deliveries`), 404, 1003);
  });

  /**
   * A webhook whose PING fails once, and which `change` (made while the receiver holds that first attempt) has
   * changed before the retry is due: the retry is queued a second after the attempt fails, which is after it
   * reached the receiver. A change that took longer (a cold start on a busy machine) may meet the retry
   * already sent, which these tests say nothing about: that round is set aside (its retry drained) and tried
   * again with a new webhook, up to three times.
   */
  async function changedWhileRetryWaits(change: (webhookId: string) => Promise<void>) {
    const retryDueAfterMs = (RETRY_DELAYS_SECONDS[0] as number) * 1000;
    const took: number[] = [];
    for (let round = 1; round <= 3; round++) {
      let webhookId = '';
      let changed: Promise<number> | undefined;
      const { receiver, webhook } = await hooks.hookedReceiver(async (_delivery, nth) => {
        if (nth === 1) {
          changed = change(webhookId).then(() => Date.now());
          await changed;
        }
        return 500;
      });
      webhookId = webhook.id;
      const eventId = await hooks.sendTest(webhook.id);
      const [first] = await receiver.waitFor((delivery) => eventIdOf(delivery) === eventId);
      const changeMs = (await (changed as Promise<number>)) - (first as ReceivedDelivery).receivedAt;
      took.push(changeMs);
      if (changeMs < retryDueAfterMs) return { receiver, webhook, eventId };
      await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    }
    return expect.fail(
      `the change took ${took.join(', ')} ms, never less than the retry's ${retryDueAfterMs} ms`,
    );
  }
});

// ---------------------------------------------------------------------------------------------------
