import { describe, expect, it } from 'vitest';
import * as webhooks from '../../functions/api/webhooks/index';
import { encodeNextToken } from '../../functions/data/pagination';
import type { Delivery } from '../../functions/data/webhook-deliveries';
import { newDeliveryId, recordDeliveryOutcome } from '../../functions/data/webhook-deliveries';
import { REDELIVERY_MARK_HOLDS_MS } from '../../functions/domain/webhook-events';
import { redeliver } from '../../functions/domain/webhooks';
import { createTestAccount } from '../support/accounts';
import { expectError, expectSuccess } from '../support/http';
import { DISABLE_AFTER_SECONDS, type Redelivery, useDeliveryApi } from '../support/webhook-delivery';
import {
  eventIdOf,
  headerOf,
  type ReceivedDelivery,
  sleep,
  waitForQueuesDrained,
  waitUntil,
} from '../support/webhook-receiver';
import type { Webhook } from '../support/webhooks';

/**
 * Redelivery of past webhook deliveries, one or a window of failed ones, with the short delivery settings of
 * test/support/webhook-delivery.ts.
 */
const hooks = useDeliveryApi('webhook-redelivery');
const { acme } = hooks;

// Redelivery
// ---------------------------------------------------------------------------------------------------

describe('redelivery', () => {
  it('redelivers one past delivery: same body and webhook-id, signed afresh, logged as a redelivery of it', async () => {
    const { receiver, webhook, state } = await hooks.outageReceiver();
    const since = Date.now();
    const [eventId] = (await hooks.failedPings(webhook.id, receiver, 1)) as [string];
    const failed = await hooks.loggedAttempts(webhook.id, 3);
    const originalId = failed[0]?.delivery_id as string;
    expect(failed.map((attempt) => attempt.delivery_id)).toEqual([originalId, originalId, originalId]);

    expectError(
      await hooks.asAcme('POST', `/webhooks/${webhook.id}/deliveries/dlv_0000000000000ffff/redeliver`),
      404,
      1003,
    );
    // The receiver is up: anything sent from now on is accepted, and counted.
    state.up = true;
    const held = await hooks.heldQueue();
    try {
      // The redelivery's message waits in the held queue: it stays pending for as long as the test needs.
      const queued = await held.queueing(() => redeliver(acme.accountId, webhook.id, originalId));
      const redelivery: Redelivery = { delivery_id: queued.deliveryId, redelivery_of: queued.redeliveryOf };
      expect(redelivery).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), redelivery_of: originalId });
      expect(redelivery.delivery_id).not.toBe(originalId);
      // While it is pending, asking again (for the original or for the redelivery) answers it and sends
      // nothing; a window redelivery leaves it alone too.
      expect(await hooks.redeliverOne(webhook.id, originalId)).toEqual(redelivery);
      expect(await hooks.redeliverOne(webhook.id, redelivery.delivery_id)).toEqual(redelivery);
      const window = { since, until: Date.now(), status: 'FAILED' };
      expect(await hooks.redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
      await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
      expect(state.accepted).toEqual([]);

      // SQS hands the redelivery on: it is sent, once.
      expect(await held.release()).toBe(1);
      const [again] = (await waitUntil('the redelivery accepted', () =>
        state.accepted.length > 0 ? state.accepted : undefined,
      )) as [ReceivedDelivery];
      await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
      expect(state.accepted).toHaveLength(1);
      expect(again.body).toBe(hooks.firstBodyOf(receiver, eventId));
      expect(headerOf(again, 'webhook-id')).toBe(eventId);
      const firstTry = receiver.deliveries[0] as ReceivedDelivery;
      expect(Number(headerOf(again, 'webhook-timestamp'))).toBeGreaterThanOrEqual(
        Number(headerOf(firstTry, 'webhook-timestamp')),
      );
      expect(headerOf(again, 'webhook-signature')).not.toBe(headerOf(firstTry, 'webhook-signature'));
      hooks.expectSigned(again, webhook);

      const log = await hooks.deliveriesOf(webhook.id);
      const redelivered = log.filter((attempt) => attempt.delivery_id === redelivery.delivery_id);
      expect(redelivered).toHaveLength(1);
      expect(redelivered[0]).toMatchObject({
        redelivery_of: originalId,
        event_id: eventId,
        event_type: 'PING',
        attempt: 1,
        status_code: 204,
        error: null,
      });

      // Once it has ended, asking again sends the event again, as a new redelivery of the original.
      const second = await hooks.redeliverOne(webhook.id, originalId);
      expect(second.redelivery_of).toBe(originalId);
      expect(second.delivery_id).not.toBe(redelivery.delivery_id);
      await waitUntil('the second redelivery accepted', () =>
        state.accepted.length === 2 ? true : undefined,
      );
      await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
      expect(state.accepted).toHaveLength(2);
      expect(state.accepted[1]?.body).toBe(again.body);
    } finally {
      await held.close();
    }
  }, 60_000);

  it('redelivers a delivery whose redelivery was marked but never queued, once the mark has expired', async () => {
    const { receiver, webhook, state } = await hooks.outageReceiver();
    const since = Date.now();
    const [staleEvent, freshEvent] = (await hooks.failedPings(webhook.id, receiver, 2)) as [string, string];
    const log = await hooks.loggedAttempts(webhook.id, 6);
    const originalOf = (eventId: string) =>
      log.find((attempt) => attempt.event_id === eventId)?.delivery_id as string;

    // Marks written as a redelivery request writes them, by a call that then died before it queued the
    // redelivery: the original marked (conditionally, at `at`) and the redelivery recorded as pending.
    const data = await import('../../functions/data/webhook-deliveries');
    const markWithoutQueueing = async (eventId: string, at: number, seen?: string) => {
      const originalId = originalOf(eventId);
      const original = (await data.getDelivery(acme.accountId, webhook.id, originalId)) as Delivery;
      const redeliveryId = data.newDeliveryId(at);
      const mark = { redeliveryId, seen, onlyIfFailed: seen === undefined, at, markExpiredBefore: 0 };
      expect(await data.markRedelivery(acme.accountId, webhook.id, originalId, mark)).toBe(true);
      await data.recordDeliveryOutcome(acme.accountId, webhook.id, {
        deliveryId: redeliveryId,
        redeliveryOf: originalId,
        eventId,
        eventType: original.eventType,
        eventJson: original.eventJson,
        status: 'PENDING',
        attempt: 0,
        firstAttemptAt: at,
        at,
      });
      return { originalId, redeliveryId };
    };
    const expiredAt = () => Date.now() - REDELIVERY_MARK_HOLDS_MS - 60_000;
    const stale = await markWithoutQueueing(staleEvent, expiredAt());
    const fresh = await markWithoutQueueing(freshEvent, Date.now());
    state.up = true;

    // The window redelivery takes the delivery whose mark expired, and leaves the one whose mark holds.
    const window = { since, until: Date.now(), status: 'FAILED' };
    const { redeliveries } = await hooks.redeliverWindow(webhook.id, window);
    expect(redeliveries).toEqual([
      { delivery_id: expect.stringMatching(/^dlv_/), redelivery_of: stale.originalId },
    ]);
    expect(redeliveries[0]?.delivery_id).not.toBe(stale.redeliveryId);
    await waitUntil('the event of the expired mark accepted', () =>
      state.accepted.length > 0 ? true : undefined,
    );
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(state.accepted.map(eventIdOf)).toEqual([staleEvent]);
    expect(await data.getDelivery(acme.accountId, webhook.id, stale.originalId)).toMatchObject({
      redeliveredAs: redeliveries[0]?.delivery_id,
      redeliveryStatus: 'SUCCEEDED',
    });
    expect(await hooks.redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
    // A mark that holds is a pending redelivery: asking for the delivery again answers it.
    const pending = { delivery_id: fresh.redeliveryId, redelivery_of: fresh.originalId };
    expect(await hooks.redeliverOne(webhook.id, fresh.originalId)).toEqual(pending);

    // Once that mark has expired too, asking for the delivery sends it.
    const expired = await markWithoutQueueing(freshEvent, expiredAt(), fresh.redeliveryId);
    const single = await hooks.redeliverOne(webhook.id, fresh.originalId);
    expect(single.redelivery_of).toBe(fresh.originalId);
    expect([fresh.redeliveryId, expired.redeliveryId]).not.toContain(single.delivery_id);
    await waitUntil('the event of the second expired mark accepted', () =>
      state.accepted.length > 1 ? true : undefined,
    );
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(state.accepted.map(eventIdOf)).toEqual([staleEvent, freshEvent]);
    for (const delivery of state.accepted) {
      expect(delivery.body).toBe(hooks.firstBodyOf(receiver, eventIdOf(delivery) as string));
    }
  }, 60_000);

  it(`refuses a retry schedule that could keep a delivery pending as long as a redelivery's mark holds`, async () => {
    const { deliverySettings, REDELIVERY_MARK_HOLDS_MS } = await import(
      '../../functions/domain/webhook-events'
    );
    // The default schedule (7 h 51 min of waits, 12 attempts of 10 s) is well inside it.
    const defaults = deliverySettings({});
    const longest =
      defaults.retryDelaysSeconds.reduce((sum, delay) => sum + delay, 0) * 1000 +
      (defaults.retryDelaysSeconds.length + 1) * defaults.timeoutMs;
    expect(longest * 2).toBeLessThan(REDELIVERY_MARK_HOLDS_MS);
    expect(() => deliverySettings({ WEBHOOK_RETRY_DELAYS_SECONDS: '43200,43200' })).toThrow(/mark/);
  });

  it('answers 4010 for a delivery still being retried, and 1003 for another account’s', async () => {
    const { webhook } = await hooks.hookedReceiver(() => 204);
    // A delivery whose first attempt failed and whose retry waits (written as the delivery worker does).
    const deliveryId = newDeliveryId(Date.now());
    const event = {
      event_id: 'evt_pending',
      type: 'PING',
      dc_id: null,
      route_id: null,
      occurred_at: Date.now(),
      details: {},
    };
    await recordDeliveryOutcome(acme.accountId, webhook.id, {
      deliveryId,
      eventId: event.event_id,
      eventType: event.type,
      eventJson: JSON.stringify(event),
      status: 'PENDING',
      attempt: 1,
      error: 'HTTP 500',
      firstAttemptAt: Date.now(),
      at: Date.now(),
    });
    const path = `/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`;
    expect(expectError(await hooks.asAcme('POST', path), 400, 4010)).toContain(deliveryId);
    const globex = await createTestAccount('Globex', [{ dcId: 'gx-1' }]);
    expectError(await hooks.request('POST', path, { key: globex.key }), 404, 1003);
  });

  it(`catches up a webhook disabled after failing: enabled again, its failed window redelivered, every event arrives once`, async () => {
    const { receiver, webhook, state } = await hooks.outageReceiver();
    const since = Date.now();
    const givenUp = await hooks.failedPings(webhook.id, receiver, 3);
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(true);

    // Still failing DISABLE_AFTER_SECONDS after the first failure: the next failure disables the webhook.
    const failingSince = (receiver.deliveries[0] as ReceivedDelivery).receivedAt;
    await sleep(Math.max(0, failingSince + DISABLE_AFTER_SECONDS * 1000 + 300 - Date.now()));
    const disabling = await hooks.sendTest(webhook.id);
    await waitUntil('the webhook disabled', async () =>
      (await hooks.getWebhook(webhook.id))?.enabled === false ? true : undefined,
    );
    // Queued for the disabled webhook: dropped, and recorded as failed.
    const dropped = await hooks.sendTest(webhook.id);
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(receiver.deliveries.filter((delivery) => eventIdOf(delivery) === dropped)).toEqual([]);
    const window = { since, until: Date.now(), status: 'FAILED' };

    // The receiver is back; nothing is redelivered to the webhook while it is disabled.
    state.up = true;
    const refused = expectError(
      await hooks.asAcme('POST', `/webhooks/${webhook.id}/redeliver`, window),
      400,
      4011,
    );
    expect(refused).toMatch(/enable/);
    const enabled = await hooks.asAcme('PATCH', `/webhooks/${webhook.id}`, { enabled: true });
    expect((expectSuccess(enabled, webhooks.updateWebhook) as { webhook: Webhook }).webhook.enabled).toBe(
      true,
    );

    // Two calls at once: the conditional mark gives each failed delivery to one of them.
    const answers = await Promise.all([
      hooks.redeliverWindow(webhook.id, window),
      hooks.redeliverWindow(webhook.id, window),
    ]);
    const redeliveries = answers.flatMap((answer) => answer.redeliveries);
    for (const answer of answers) expect(answer.next_token).toBeUndefined();
    expect(redeliveries).toHaveLength(5);
    expect(new Set(redeliveries.map((redelivery) => redelivery.redelivery_of)).size).toBe(5);

    const events = [...givenUp, disabling, dropped];
    await waitUntil('every failed event accepted', () =>
      events.every((eventId) => state.accepted.some((delivery) => eventIdOf(delivery) === eventId))
        ? true
        : undefined,
    );
    // Pending or succeeded: calling again queues nothing.
    expect(await hooks.redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(await hooks.redeliverWindow(webhook.id, window)).toEqual({ redeliveries: [] });
    // Each event arrived once, as it was first sent, signed.
    expect(state.accepted.map(eventIdOf).sort()).toEqual([...events].sort());
    for (const delivery of state.accepted) {
      hooks.expectSigned(delivery, webhook);
      const first = hooks.firstBodyOf(receiver, eventIdOf(delivery) as string);
      expect(delivery.body).toBe(first);
    }

    // The log: each redelivery's attempt names the delivery it sends again; the originals are the failed ones.
    const log = await hooks.deliveriesOf(webhook.id);
    const redelivered = log.filter((attempt) => attempt.redelivery_of !== null);
    expect(redelivered.map((attempt) => `${attempt.delivery_id} ${attempt.redelivery_of}`).sort()).toEqual(
      redeliveries.map((redelivery) => `${redelivery.delivery_id} ${redelivery.redelivery_of}`).sort(),
    );
    for (const attempt of redelivered)
      expect(attempt).toMatchObject({ attempt: 1, status_code: 204, error: null });
    const failedOriginals = new Set(
      log.filter((attempt) => attempt.redelivery_of === null).map((attempt) => attempt.delivery_id),
    );
    // Four were attempted before; the dropped one never was.
    expect(failedOriginals.size).toBe(4);
    for (const id of failedOriginals) expect(redeliveries.map((r) => r.redelivery_of)).toContain(id);
    expect((await hooks.getWebhook(webhook.id))?.enabled).toBe(true);
  }, 90_000);

  it('redelivers a window a page at a time: `limit` a call, oldest first, `next_token` to go on', async () => {
    const { receiver, webhook, state } = await hooks.outageReceiver();
    const since = Date.now();
    await hooks.failedPings(webhook.id, receiver, 3);
    state.up = true;
    const window = { since, until: Date.now(), status: 'FAILED', limit: 2 };

    const first = await hooks.redeliverWindow(webhook.id, window);
    expect(first.redeliveries).toHaveLength(2);
    expect(first.next_token).toEqual(expect.any(String));
    const rest = await hooks.redeliverWindow(webhook.id, { ...window, next_token: first.next_token });
    expect(rest.redeliveries).toHaveLength(1);
    expect(rest.next_token).toBeUndefined();
    const originals = [...first.redeliveries, ...rest.redeliveries].map(
      (redelivery) => redelivery.redelivery_of,
    );
    expect(originals).toEqual([...originals].sort());
    expect(new Set(originals).size).toBe(3);

    await waitUntil('the three events accepted', () => (state.accepted.length >= 3 ? true : undefined));
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(state.accepted).toHaveLength(3);
    expect(new Set(state.accepted.map(eventIdOf)).size).toBe(3);
  }, 60_000);

  it('refuses a bad window with 1006 naming the field', async () => {
    const { webhook } = await hooks.hookedReceiver(() => 204);
    const path = `/webhooks/${webhook.id}/redeliver`;
    const now = Date.now();
    const bodies: [Record<string, unknown> | undefined, string][] = [
      [{ since: now, until: now - 1, status: 'FAILED' }, 'until'],
      [{ since: now, until: now, status: 'SUCCEEDED' }, 'status'],
      [{ since: now, until: now }, 'status'],
      [{ until: now, status: 'FAILED' }, 'since'],
      [{ since: -1, until: now, status: 'FAILED' }, 'since'],
      [{ since: 0, until: now, status: 'FAILED', limit: 101 }, 'limit'],
      [{ since: 0, until: now, status: 'FAILED', limit: 0 }, 'limit'],
      [{ since: 0, until: now, status: 'FAILED', next_token: 'not-a-token' }, 'next_token'],
      [{ since: 0, until: now, status: 'FAILED', webhook_id: 'x' }, 'webhook_id'],
    ];
    for (const [body, field] of bodies) {
      expect(expectError(await hooks.asAcme('POST', path, body), 400, 1006), JSON.stringify(body)).toContain(
        field,
      );
    }
    expectError(await hooks.asAcme('POST', path), 400, 1006);
    // A token of another window or another webhook does not continue this one.
    const elsewhere = [
      { pk: `WEBHOOK_DELIVERY#${acme.accountId}/${webhook.id}`, sk: `dlv_${String(now + 10 * 60_000)}0000` },
      { pk: `WEBHOOK_DELIVERY#${acme.accountId}/wh_other`, sk: `dlv_${String(now)}0000` },
    ];
    for (const key of elsewhere) {
      const body = { since: now - 60_000, until: now, status: 'FAILED', next_token: encodeNextToken(key) };
      expect(expectError(await hooks.asAcme('POST', path, body), 400, 1006)).toContain('next_token');
    }
  });
});
