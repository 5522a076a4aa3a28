import { beforeAll, describe, expect, it } from 'vitest';
import { getDelivery } from '../../functions/data/webhook-deliveries';
import { expectError } from '../support/http';
import {
  messagesHeld,
  type WebhookReceiver,
  waitForQueuesDrained,
  waitUntil,
} from '../support/webhook-receiver';
import { createBody, firstPingAttempt, useWebhookApi } from '../support/webhooks';

/**
 * The SSRF guard in the local runtime turned on as deployed (`WEBHOOK_ALLOW_PRIVATE_TARGETS=false npm start`):
 * webhook create refuses an address the guard refuses written in the URL, and the delivery worker refuses a
 * host name that resolves to one, ending the delivery FAILED with its reason in the delivery log, without a
 * retry, a DLQ message or an error line (the tenant's URL is at fault, not the service).
 */

const hooks = useWebhookApi('webhook-ssrf-guard', { ssrfGuard: true });

describe('with the SSRF guard on', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await hooks.receiver();
  });

  it.each([
    ['loopback IPv4', () => `http://127.0.0.1:${receiver.port}/hooks`],
    ['loopback IPv4 in hex', () => `http://0x7f.1:${receiver.port}/hooks`],
    ['loopback IPv6', () => `http://[::1]:${receiver.port}/hooks`],
    ['a private network address', () => 'http://10.0.0.1/hooks'],
    ['the metadata address', () => 'https://169.254.169.254/latest/meta-data'],
    ['an IPv4-mapped private address', () => 'http://[::ffff:10.0.0.1]/hooks'],
    ['a deprecated site-local IPv6 address (fec0::/10)', () => 'http://[fec0::1]/hooks'],
    ['a discard-only IPv6 address (100::/64)', () => 'http://[100::1]/hooks'],
  ])('refuses a webhook to %s at create with 4001', async (_name, url) => {
    const response = await hooks.asAccount('POST', '/webhooks', createBody(url()));
    expect(expectError(response, 400, 4001)).toMatch(/^webhook_url has a blocked address as its host \(/);
  });

  it('ends a delivery to a host name resolving to loopback FAILED with the reason in its log: no retry, no DLQ message, no error line', async () => {
    // A host name passes create: what it resolves to is judged when connecting.
    const webhook = await hooks.createWebhook(`http://localhost:${receiver.port}/hooks`);
    const eventId = await hooks.sendTest(webhook.id);

    const attempt = await hooks.newestAttempt(webhook.id);
    expect(attempt).toEqual(
      firstPingAttempt(eventId, {
        status_code: null,
        error: expect.stringMatching(/^refused: host 'localhost' resolves to a blocked address \(/),
        duration_ms: expect.any(Number),
      }),
    );
    // The worker logs the attempt, then records the delivery's outcome: wait for the second write too.
    const delivery = await waitUntil('the delivery record', () =>
      getDelivery(hooks.accounts.acme.accountId, webhook.id, attempt.delivery_id as string),
    );
    expect(delivery).toMatchObject({ status: 'FAILED', error: attempt.error });

    // Once the worker is done with the message, nothing is left: no retry queued, nothing dead-lettered.
    await waitForQueuesDrained(hooks.fx.api, ['deliveries']);
    expect(await messagesHeld(hooks.fx.api.resources.dlqUrls.deliveries)).toBe(0);
    expect(await hooks.deliveriesOf(webhook.id)).toHaveLength(1);
    expect(receiver.deliveries).toEqual([]);

    const lines = hooks.fx.api.logs.filter(({ line }) => line.includes(webhook.id)).map(({ line }) => line);
    expect(lines.filter((line) => line.includes('"level":"ERROR"'))).toEqual([]);
    expect(
      lines.filter((line) => line.includes('"level":"WARN"') && line.includes('refused by the SSRF guard')),
    ).toHaveLength(1);
  });
});
