import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { verifySignature } from '../../functions/domain/webhook-http';
import type { DeliveryMessage } from '../../functions/models/channels';
import { expectError } from '../support/http';
import {
  eventIdOf,
  findInDeliveriesDlq,
  headerOf,
  type ReceivedDelivery,
  standardVerified,
  type WebhookReceiver,
  waitUntil,
} from '../support/webhook-receiver';
import {
  type CreatedWebhook,
  expectSigned,
  firstPingAttempt,
  MINUTE,
  rawWebhookItem,
  setStoredSecret,
  useWebhookApi,
} from '../support/webhooks';

/**
 * Webhook signing secrets end to end: Standard Webhooks signatures checked as integrators check them, secret
 * rotation, and secrets at rest, sealed with a KMS data key and bound to their webhook.
 */

const hooks = useWebhookApi('webhook-secrets');

// ---------------------------------------------------------------------------------------------------
// 1b. Standard Webhooks signatures, checked as integrators check them, and secret rotation
// ---------------------------------------------------------------------------------------------------

describe('Standard Webhooks signatures and secret rotation', () => {
  let to: WebhookReceiver;
  let hook: CreatedWebhook;

  beforeAll(async () => {
    to = await hooks.receiver();
    hook = await hooks.createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
  });

  const ping = (id = hook.id) => hooks.ping(to, id);
  const rotate = (body?: unknown, id = hook.id) => hooks.rotate(id, body);
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
    const other = await hooks.createWebhook('https://example.com/other-hooks', ['ROUTE_FINISHED'], ['dc-2']);
    expect(standardVerified(other.secret, delivery)).toBe(false);
    await hooks.asAccount('DELETE', `/webhooks/${other.id}`);
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
    const legacyTo = await hooks.receiver();
    const legacy = await hooks.createWebhook(legacyTo.url, ['ROUTE_FINISHED'], ['dc-2']);
    const oldSecret = `whsec_${randomBytes(32).toString('base64url')}`;
    await setStoredSecret(hooks.fx.api.tableName, hooks.accounts.acme.accountId, legacy.id, oldSecret);
    const eventId = await hooks.sendTest(legacy.id);
    const [delivery] = (await legacyTo.waitFor((received) => eventIdOf(received) === eventId)) as [
      ReceivedDelivery,
    ];
    expect(standardVerified(oldSecret, delivery, { format: 'raw' })).toBe(true);
    expect(standardVerified(`whsec_${Buffer.from(oldSecret).toString('base64')}`, delivery)).toBe(true);
    expect(verifySignature(oldSecret, headerOf(delivery, 'X-Signature') ?? '', delivery.body)).toBe(true);
    // Rotating gives it a secret of the standard form.
    const rotated = await rotate({ expire_previous_after_seconds: 0 }, legacy.id);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await hooks.asAccount('DELETE', `/webhooks/${legacy.id}`);
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
    for (const listed of await hooks.listWebhooks()) expect(listed).not.toHaveProperty('secret');
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
        await hooks.asAccount('POST', path, { expire_previous_after_seconds: value }),
        400,
        1006,
      );
      expect(message).toContain('expire_previous_after_seconds');
    }
    expect(expectError(await hooks.asAccount('POST', path, { secret: 'whsec_mine' }), 400, 1006)).toContain(
      'secret',
    );
    // Nothing changed: the last secret still signs, alone.
    const delivery = await ping();
    expect(signatures(delivery)).toHaveLength(1);
    expect(standardVerified(hook.secret, delivery)).toBe(true);
  });

  it('rotates only the key’s account’s webhooks: another account’s answers 404 and keeps its secret', async () => {
    const response = await hooks.request('POST', `/webhooks/${hook.id}/rotate-secret`, {
      key: hooks.accounts.globex.key,
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
    to = await hooks.receiver();
  });

  const rawItem = (id: string) => rawWebhookItem(hooks.fx.api.tableName, hooks.accounts.acme.accountId, id);
  const setSecret = (id: string, secret: unknown) =>
    setStoredSecret(hooks.fx.api.tableName, hooks.accounts.acme.accountId, id, secret);
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
    const { secret } = await hooks.rotate(id, body);
    issued.push(secret);
    return secret;
  };
  const ping = (id: string) => hooks.ping(to, id);

  it('stores a new secret sealed (ciphertext, IV, tag, encrypted data key, key ARN), never in plain text', async () => {
    const hook = await hooks.createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
    issued.push(hook.secret);
    const item = await rawItem(hook.id);
    expect(item.secret).toEqual({
      v: 1,
      key_id: hooks.fx.api.cloud.operatorEnvironment.WEBHOOK_SECRETS_KEY_ARN,
      data_key: expect.any(Uint8Array),
      iv: expect.any(Uint8Array),
      tag: expect.any(Uint8Array),
      ciphertext: expect.any(Uint8Array),
    });
    expect(hooks.fx.api.cloud.operatorEnvironment.WEBHOOK_SECRETS_KEY_ARN).toMatch(
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
    await hooks.asAccount('DELETE', `/webhooks/${hook.id}`);
  });

  it('seals a plain secret of an older webhook when it is rotated, and both go on signing for the grace period', async () => {
    const hook = await hooks.createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
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
    await hooks.asAccount('DELETE', `/webhooks/${hook.id}`);
  });

  it('does not open a sealed secret moved to another webhook: that delivery fails at once, generically, and the queue goes on', async () => {
    const source = await hooks.createWebhook(
      'https://example.com/source-hooks',
      ['ROUTE_FINISHED'],
      ['dc-2'],
    );
    const target = await hooks.createWebhook(to.url, ['ROUTE_FINISHED'], ['dc-2']);
    // Another URL of the same receiver: one webhook per URL and event type in an account.
    const healthy = await hooks.createWebhook(new URL('?healthy', to.url).href, ['ROUTE_FINISHED'], ['dc-2']);
    issued.push(source.secret, target.secret, healthy.secret);
    // Someone with write access to the table copies the source's sealed secret into the target's item.
    await setSecret(target.id, (await rawItem(source.id)).secret);

    const eventId = await hooks.sendTest(target.id);
    expect(await hooks.newestAttempt(target.id)).toEqual(
      firstPingAttempt(eventId, {
        status_code: null,
        error: 'signing secret unreadable; rotate the secret',
        duration_ms: 0,
      }),
    );
    const dead = await findInDeliveriesDlq<DeliveryMessage>(
      hooks.fx.api,
      (body) => body.webhook_id === target.id && body.event?.event_id === eventId,
    );
    expect(dead).toMatchObject({ webhook_id: target.id, attempt: 1 });
    // The queue goes on: the next delivery, to another webhook, arrives; the failed one was not retried.
    expect(standardVerified(healthy.secret, await ping(healthy.id))).toBe(true);
    expect(await hooks.deliveriesOf(target.id)).toHaveLength(1);
    expect(to.deliveries.filter((received) => eventIdOf(received) === eventId)).toEqual([]);
    // The worker logged the failure by ids.
    await waitUntil('the error line', () =>
      hooks.fx.api.logs.some((log) => log.line.includes('does not decrypt') && log.line.includes(target.id))
        ? true
        : undefined,
    );

    // A rotation gives the webhook a secret it can open again (the unreadable one is not kept signing).
    const next = await rotate(target.id);
    const delivery = await ping(target.id);
    expect(standardVerified(next, delivery)).toBe(true);
    expect((headerOf(delivery, 'webhook-signature') ?? '').split(' ')).toHaveLength(1);
    for (const hook of [source, target, healthy]) await hooks.asAccount('DELETE', `/webhooks/${hook.id}`);
  });

  it('keeps a data key KMS decrypted for minutes in the process, for the same owner only', async () => {
    const { openSecret, sealSecrets, UnreadableSecretError } = await import(
      '../../functions/data/secret-envelope'
    );
    const context = { account_id: hooks.accounts.acme.accountId, webhook_id: 'wh_cached' };
    const [sealed] = await sealSecrets(['cached-secret'], context);
    if (!sealed) throw new Error('nothing sealed');
    expect(await openSecret(sealed, context)).toBe('cached-secret');
    // While KMS knows no key, every Decrypt fails: an opening that still succeeds asked KMS nothing.
    hooks.fx.api.cloud.proxy.configureKeys([]);
    try {
      expect(await openSecret(sealed, context)).toBe('cached-secret');
      await expect(openSecret(sealed, { ...context, webhook_id: 'wh_other' })).rejects.toThrow(
        /NotFound|exist/,
      );
    } finally {
      hooks.fx.api.cloud.proxy.configureKeys(hooks.fx.api.cloud.deployment.keys);
    }
    // Another owner's context is never answered from the cache: KMS refuses it.
    await expect(openSecret(sealed, { ...context, webhook_id: 'wh_other' })).rejects.toBeInstanceOf(
      UnreadableSecretError,
    );
  });

  it('never writes a secret to a log line', () => {
    expect(issued.length).toBeGreaterThan(0);
    const text = hooks.fx.api.logs.map((log) => log.line).join('\n');
    for (const secret of issued) for (const form of formsOf(secret)) expect(text).not.toContain(form);
  });
});
