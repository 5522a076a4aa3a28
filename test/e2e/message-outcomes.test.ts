import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listNotifications, type NotificationRecord } from '../../functions/data/notifications';
import { isOptedOut } from '../../functions/data/opt-outs';
import { createTestAccount } from '../support/accounts';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { readOutbox } from '../support/outbox';
import { exampleRoute, importRoute } from '../support/routes';
import {
  eventTypeOf,
  startWebhookReceiver,
  type WebhookReceiver,
  waitUntil,
} from '../support/webhook-receiver';
import { createBody } from '../support/webhooks';

/**
 * What becomes of customer messages after they are sent, end to end through the local outbox, which publishes
 * the outcomes AWS's simulators would (docs/local-runtime.md, The outbox): delivery events end a message
 * DELIVERED, a bounce BOUNCED with NOTIFICATION_FAILED to the webhooks, an SMS failure FAILED; a STOP reply, or
 * AWS's opt-out list, keeps later SMS from that phone (SUPPRESSED `opted_out`, no provider call); an outcome
 * naming another account's or no message changes nothing, and a late one never moves a final status back.
 */

const fx = useTestApi('message-outcomes', { streams: true });
let acme: TestAccount;
let globex: TestAccount;
let receiver: WebhookReceiver;
let token = '';

const PHONE = '+14155550100';
const FAILING_PHONE = '+33755512502'; // End User Messaging's French failure simulator number
const LISTED_PHONE = '+14155550199'; // on the (local) opt-out list only
const DELIVERED_EMAIL = 'success@simulator.amazonses.com';
const BOUNCING_EMAIL = 'bounce@simulator.amazonses.com';
const HOUR = 3_600_000;

const outbox = () => readOutbox(fx.api.url);

const smsReply = (from: string, body: string) =>
  fetch(`${fx.api.url}/_local/outbox/sms-replies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from, to: '+12065550100', body }),
  });

/** The route's records of waypoint `sequence` once `done` holds for them. */
const recordsWhen = (
  routeId: string,
  sequence: number,
  what: string,
  done: (r: NotificationRecord[]) => boolean,
) =>
  waitUntil(
    what,
    async () => {
      const records = await listNotifications(acme.accountId, routeId, sequence);
      return done(records) ? records : undefined;
    },
    45_000,
  );

async function startRoute(routeId: string, recipients: Record<string, unknown>[]) {
  const route = exampleRoute(routeId, {
    waypoints: recipients.length,
    driverId: 'd-1',
    startTime: Date.now() + HOUR,
  });
  recipients.forEach((recipient, index) => {
    (route.waypoints[index] as Record<string, unknown>).recipient = { ...recipient, locale: 'en' };
  });
  await importRoute(fx.api.url, acme.key, 'dc-1', route);
  const started = await fx.as(token, 'POST', `/driver/routes/${routeId}/start`, { timestamp: Date.now() });
  expect(started.status, started.text).toBe(200);
}

beforeAll(async () => {
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1', name: 'Acme North' }]);
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }]);
  token = await fx.createDriver(acme.key, 'dc-1', 'd-1', 'Ana Ruiz');
  const settings = await fx.as(acme.key, 'PUT', '/dcs/dc-1/notification-settings', {
    triggers: ['ROUTE_STARTED'],
    channels: ['SMS', 'EMAIL'],
  });
  expect(settings.status, settings.text).toBe(200);
  receiver = await startWebhookReceiver();
  const hook = await fx.as(acme.key, 'POST', '/webhooks', createBody(receiver.url, ['NOTIFICATION_FAILED']));
  expect(hook.status, hook.text).toBe(200);
}, 60_000);

afterAll(() => receiver?.close());

describe('message outcomes', { timeout: 120_000 }, () => {
  it('ends a delivered email and SMS DELIVERED, after SENT, with the time of the event', async () => {
    await startRoute('mo-1', [
      { phone: PHONE, email: DELIVERED_EMAIL },
      { email: BOUNCING_EMAIL },
      { phone: FAILING_PHONE },
    ]);
    const records = await recordsWhen(
      'mo-1',
      0,
      'both messages DELIVERED',
      (found) => found.length === 2 && found.every((r) => r.status === 'DELIVERED'),
    );
    for (const record of records) {
      expect(record.sentAt).toBeGreaterThanOrEqual(record.createdAt);
      expect(record.endedAt).toBeGreaterThanOrEqual(record.createdAt);
      expect(record.providerMessageId).toMatch(/^local-/);
      expect(record.statusReason).toBeUndefined();
    }
  });

  it('ends a bounced email BOUNCED and tells the webhooks NOTIFICATION_FAILED; a failed SMS ends FAILED', async () => {
    const [bounced] = await recordsWhen('mo-1', 1, 'the bounce', (found) => found[0]?.status === 'BOUNCED');
    expect(bounced?.statusReason).toBe('Permanent/General 5.1.1');
    const [failed] = await recordsWhen(
      'mo-1',
      2,
      'the SMS failure',
      (found) => found[0]?.status === 'FAILED',
    );
    expect(failed?.statusReason).toBe('UNREACHABLE: The recipient’s device is unreachable');
    const deliveries = await receiver.waitFor((d) => eventTypeOf(d) === 'NOTIFICATION_FAILED', 2, 45_000);
    const bodies = deliveries.map((d) => d.json);
    expect(bodies.map((b) => b.route_id)).toEqual(['mo-1', 'mo-1']);
    expect(bodies.find((b) => b.channel === 'EMAIL')).toMatchObject({
      event: 'NOTIFICATION_FAILED',
      dc_id: 'dc-1',
      waypoint_id: 'mo-1-wp-1',
      notification_id: bounced?.notificationId,
      trigger: 'ROUTE_STARTED',
      channel: 'EMAIL',
      to: bounced?.to,
      status: 'BOUNCED',
      reason: 'Permanent/General 5.1.1',
    });
    // The address is masked as the waypoint reads show it; the provider's words name none.
    expect(JSON.stringify(bodies)).not.toContain('bounce@');
    expect(bodies.find((b) => b.channel === 'SMS')).toMatchObject({
      waypoint_id: 'mo-1-wp-2',
      status: 'FAILED',
    });
  });

  it('keeps the next SMS from a phone that replied STOP: SUPPRESSED opted_out, nothing sent', async () => {
    expect((await smsReply(PHONE, 'Stop')).status).toBe(202);
    await waitUntil('the opt-out', async () =>
      (await isOptedOut(acme.accountId, 'SMS', PHONE)) ? true : undefined,
    );
    // Another account never texted the phone: its messages to it are not affected.
    expect(await isOptedOut(globex.accountId, 'SMS', PHONE)).toBe(false);
    const before = (await outbox()).length;
    await startRoute('mo-2', [{ phone: PHONE }]);
    const [record] = await recordsWhen('mo-2', 0, 'the suppressed record', (found) => found.length === 1);
    expect([record?.status, record?.statusReason]).toEqual(['SUPPRESSED', 'opted_out']);
    expect(record?.providerMessageId).toBeUndefined();
    expect((await outbox()).slice(before).filter((m) => m.to === PHONE)).toEqual([]);
  });

  it('records a number on AWS’s opt-out list when the send is refused, SUPPRESSED, not retried', async () => {
    // A STOP the service cannot map to an account (no account texted the phone) still puts it on the list.
    expect((await smsReply(LISTED_PHONE, 'STOP')).status).toBe(202);
    expect(await isOptedOut(acme.accountId, 'SMS', LISTED_PHONE)).toBe(false);
    await startRoute('mo-3', [{ phone: LISTED_PHONE }]);
    const [record] = await recordsWhen(
      'mo-3',
      0,
      'the refused send',
      (found) => found[0]?.status === 'SUPPRESSED',
    );
    expect(record?.statusReason).toBe('opted_out');
    expect(await isOptedOut(acme.accountId, 'SMS', LISTED_PHONE)).toBe(true);
    expect((await outbox()).filter((m) => m.to === LISTED_PHONE)).toEqual([]);
  });

  it('changes nothing for an outcome of another account’s or no message, nor for a late delivery after a bounce', async () => {
    const [bounced] = await listNotifications(acme.accountId, 'mo-1', 1);
    const [delivered] = await listNotifications(acme.accountId, 'mo-1', 0);
    const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
    const publish = (event: Record<string, unknown>) =>
      sqs.send(
        new SendMessageCommand({
          QueueUrl: fx.api.resources.queueUrls.messageOutcomes,
          MessageBody: JSON.stringify({
            Type: 'Notification',
            MessageId: crypto.randomUUID(),
            TopicArn: 'arn:aws:sns:us-east-1:000000000000:message-outcomes',
            Message: JSON.stringify(event),
          }),
        }),
      );
    const sesEvent = (eventType: string, accountId: string, notificationId: string) => ({
      eventType,
      mail: {
        timestamp: new Date().toISOString(),
        tags: { account_id: [accountId], notification_id: [notificationId] },
      },
      ...(eventType === 'Bounce'
        ? { bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [] } }
        : { delivery: { timestamp: new Date().toISOString() } }),
    });
    const from = fx.api.logs.length;
    await publish(sesEvent('Bounce', globex.accountId, delivered?.notificationId as string));
    await publish(sesEvent('Bounce', acme.accountId, 'no-such-message'));
    await publish(sesEvent('Delivery', acme.accountId, bounced?.notificationId as string));
    const outcomes = await waitUntil(
      'the three outcomes processed',
      () => {
        const lines = fx.api.logs.slice(from).map((log) => log.line);
        return lines.filter((line) => line.includes('"message outcome processed"')).length >= 3
          ? lines
          : undefined;
      },
      30_000,
    );
    expect(outcomes.filter((line) => line.includes('message outcome dropped'))).toHaveLength(2);
    expect(outcomes.some((line) => line.includes('stale: DELIVERED would not move BOUNCED on'))).toBe(true);
    expect((await listNotifications(acme.accountId, 'mo-1', 0)).map((r) => r.status)).toEqual([
      'DELIVERED',
      'DELIVERED',
    ]);
    expect((await listNotifications(acme.accountId, 'mo-1', 1)).map((r) => r.status)).toEqual(['BOUNCED']);
  });

  it('answers a bad SMS reply with 400', async () => {
    expect((await smsReply('not a phone', 'STOP')).status).toBe(400);
  });
});
