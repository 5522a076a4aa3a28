import { beforeAll, describe, expect, it } from 'vitest';
import * as tracking from '../../functions/api/tracking/index';
import { listNotifications } from '../../functions/data/notifications';
import { isOptedOut } from '../../functions/data/opt-outs';
import { createTestAccount } from '../support/accounts';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { callRaw, expectError, expectSuccess } from '../support/http';
import { readOutbox } from '../support/outbox';
import { exampleRoute, importRoute } from '../support/routes';

/**
 * One-click unsubscribe end to end through the local outbox (docs/api.md, Customer notifications; RFC 8058):
 * an email carries List-Unsubscribe and List-Unsubscribe-Post naming a link on the tracking host; a GET of it
 * changes nothing; its one-click POST opts the address out of the account's emails, for every DC of the
 * account and no other account.
 */

const fx = useTestApi('unsubscribe', { streams: true });
let acme: TestAccount;
let globex: TestAccount;
const tokens: Record<string, string> = {};

const EMAIL = 'robin.customer@example.com';
const HOUR = 3_600_000;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const ONE_CLICK = {
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: 'List-Unsubscribe=One-Click',
};

const outbox = () => readOutbox(fx.api.url);

const emailsTo = async (to: string) =>
  (await outbox()).filter((message) => message.to.toLowerCase() === to.toLowerCase());

/** Polls `read` until `done` holds of its value (the event path is asynchronous: about 20 s for the first on a busy machine). */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    expect(Date.now(), what).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function createDriver(account: TestAccount, driverId: string, dcId: string) {
  tokens[driverId] = await fx.createDriver(account.key, dcId, driverId, 'Sam Field');
}

/** Imports a route whose first stop's recipient has `email`, and starts it: ROUTE_STARTED tells the recipient. */
async function startRouteTo(
  account: TestAccount,
  dcId: string,
  routeId: string,
  driverId: string,
  email: string,
) {
  const route = exampleRoute(routeId, { waypoints: 2, driverId, startTime: Date.now() + HOUR });
  (route.waypoints as Record<string, unknown>[])[0] = {
    ...(route.waypoints as Record<string, unknown>[])[0],
    recipient: { email, locale: 'en' },
  };
  await importRoute(fx.api.url, account.key, dcId, route);
  const started = await fx.as(tokens[driverId] as string, 'POST', `/driver/routes/${routeId}/start`, {
    timestamp: Date.now(),
  });
  expect(started.status, started.text).toBe(200);
}

/** The path of the unsubscribe link of the first email to EMAIL (the link under the API's URL). */
let unsubscribePath: string;

beforeAll(async () => {
  acme = await createTestAccount('Acme', [
    { dcId: 'dc-1', name: 'Acme North' },
    { dcId: 'dc-2', name: 'Acme South' },
  ]);
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1', name: 'Globex' }]);
  await createDriver(acme, 'd-1', 'dc-1');
  await createDriver(acme, 'd-2', 'dc-2');
  await createDriver(globex, 'g-1', 'dc-1');
  for (const [account, dcId] of [
    [acme, 'dc-1'],
    [acme, 'dc-2'],
    [globex, 'dc-1'],
  ] as const) {
    const set = await fx.as(account.key, 'PUT', `/dcs/${dcId}/notification-settings`, {
      triggers: ['ROUTE_STARTED'],
      channels: ['EMAIL'],
    });
    expect(set.status, set.text).toBe(200);
  }
}, 60_000);

describe('one-click unsubscribe', { timeout: 120_000 }, () => {
  it('sends each email with RFC 8058’s List-Unsubscribe and List-Unsubscribe-Post, and the link in its footer', async () => {
    await startRouteTo(acme, 'dc-1', 'un-1', 'd-1', EMAIL);
    const [email] = await until(
      'the first email',
      () => emailsTo(EMAIL),
      (found) => found.length >= 1,
    );
    const link = /(http:\/\/\S+\/track\/[\w-]{22})\n/.exec(email?.body ?? '')?.[1];
    expect(link).toBeDefined();
    const url = /^<(http:\/\/\S+\/track\/[\w-]{22}\/unsubscribe\/[\w-]{22})>$/.exec(
      email?.headers['List-Unsubscribe'] ?? '',
    )?.[1];
    expect(url?.startsWith(`${link}/unsubscribe/`)).toBe(true);
    expect(email?.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(email?.body.endsWith(`\n\nUnsubscribe: ${url}`)).toBe(true);
    // The address is nowhere in the link.
    expect(url?.toLowerCase()).not.toContain('robin');
    unsubscribePath = (url as string).slice(fx.api.url.length);
  });

  it('answers a GET of the link with a page whose button POSTs the one-click body; a GET unsubscribes nobody', async () => {
    const page = await callRaw(fx.api.url, 'GET', unsubscribePath, { headers: { Accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.text).toContain('<form method="post" action="">');
    expect(page.text).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(page.text).toContain('Acme North');
    expect(page.text).not.toContain(EMAIL);
    const json = expectSuccess(await fx.request('GET', unsubscribePath), tracking.getUnsubscribePage);
    expect(json).toEqual({ dc_name: 'Acme North', email: 'r•••@example.com', unsubscribed: false });
    expect(await isOptedOut(acme.accountId, 'EMAIL', EMAIL)).toBe(false);
  });

  it('refuses a bad token, a bad address key and a body that is not the one-click one with the envelope', async () => {
    const [, token, key] = /\/track\/([\w-]{22})\/unsubscribe\/([\w-]{22})$/.exec(unsubscribePath) ?? [];
    const otherToken = `${(token as string).slice(0, 21)}${token?.endsWith('A') ? 'B' : 'A'}`;
    const otherKey = `${(key as string).slice(0, 21)}${key?.endsWith('A') ? 'B' : 'A'}`;
    const post = (path: string, init: { headers: Record<string, string>; body: string }) =>
      callRaw(fx.api.url, 'POST', path, init);
    const envelope = (answer: { status: number; text: string }) => ({
      status: answer.status,
      body: JSON.parse(answer.text),
      text: answer.text,
      headers: new Headers(),
    });
    expect(
      expectError(envelope(await post(`/track/${otherToken}/unsubscribe/${key}`, ONE_CLICK)), 404, 7000),
    ).toMatch(/^path\.token: /);
    expect(
      expectError(envelope(await post(`/track/nonsense/unsubscribe/${key}`, ONE_CLICK)), 404, 7000),
    ).toMatch(/^path\.token: /);
    expect(
      expectError(envelope(await post(`/track/${token}/unsubscribe/${otherKey}`, ONE_CLICK)), 404, 7002),
    ).toMatch(/^path\.address_key: /);
    expectError(await fx.request('GET', `/track/${token}/unsubscribe/${otherKey}`), 404, 7002);
    for (const body of ['List-Unsubscribe=Yes', '', 'other=One-Click'])
      expect(
        expectError(envelope(await post(unsubscribePath, { ...ONE_CLICK, body })), 400, 1006),
        body,
      ).toMatch(/^body\.List-Unsubscribe: /);
    // JSON is no form.
    expectError(
      await fx.request('POST', unsubscribePath, { body: { 'List-Unsubscribe': 'One-Click' } }),
      400,
      1006,
    );
    expect(await isOptedOut(acme.accountId, 'EMAIL', EMAIL)).toBe(false);
  });

  it('unsubscribes on the one-click POST: later emails of any DC of the account are SUPPRESSED, another account’s still go', async () => {
    // As a mail client posts it: no Accept, the form urlencoded.
    const posted = await callRaw(fx.api.url, 'POST', unsubscribePath, ONE_CLICK);
    expect(posted.status, posted.text).toBe(200);
    expect(JSON.parse(posted.text)).toEqual({
      status: 'success',
      data: { dc_name: 'Acme North', email: 'r•••@example.com', unsubscribed: true },
    });
    // Again, multipart as RFC 8058 prefers: the same answer.
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const again = await callRaw(fx.api.url, 'POST', unsubscribePath, { body: form });
    expect(again.status, again.text).toBe(200);
    // The page's button, from a browser: a page saying so; the link's page now has no button.
    const button = await callRaw(fx.api.url, 'POST', unsubscribePath, {
      ...ONE_CLICK,
      headers: { ...ONE_CLICK.headers, Accept: BROWSER_ACCEPT },
    });
    expect(button.status).toBe(200);
    expect(button.text).toContain('<h1>Unsubscribed</h1>');
    const page = await callRaw(fx.api.url, 'GET', unsubscribePath, { headers: { Accept: BROWSER_ACCEPT } });
    expect(page.text).toContain('<h1>Unsubscribed</h1>');
    expect(page.text).not.toContain('<form');
    expect(await isOptedOut(acme.accountId, 'EMAIL', ` ${EMAIL.toUpperCase()} `)).toBe(true);

    // Another DC of the account, the address written otherwise: recorded SUPPRESSED, opted_out, never sent.
    await startRouteTo(acme, 'dc-2', 'un-2', 'd-2', 'Robin.Customer@Example.com');
    const [record] = await until(
      'the suppressed record',
      () => listNotifications(acme.accountId, 'un-2', 0),
      (records) => records.length >= 1,
    );
    expect([record?.channel, record?.status, record?.statusReason]).toEqual([
      'EMAIL',
      'SUPPRESSED',
      'opted_out',
    ]);
    expect(record?.providerMessageId).toBeUndefined();

    // Another account's message to the same address goes.
    await startRouteTo(globex, 'dc-1', 'un-3', 'g-1', EMAIL);
    const emails = await until(
      'Globex’s email',
      () => emailsTo(EMAIL),
      (found) => found.length >= 2,
    );
    expect(emails).toHaveLength(2);
    expect(emails[1]?.subject).toBe('Your delivery from Globex is on its way');
    expect(emails.map((email) => email.tags.notification_id)).not.toContain(record?.notificationId);
    // The worker records the message SENT after the send's answer, which is after the outbox has it: wait for
    // that. SENT, or DELIVERED once the outbox's delivery event came back (message-outcomes.test.ts).
    const [globexRecord] = await until(
      'Globex’s record past QUEUED',
      () => listNotifications(globex.accountId, 'un-3', 0),
      (records) => records.length >= 1 && records[0]?.status !== 'QUEUED',
    );
    expect(globexRecord?.status).toMatch(/^(SENT|DELIVERED)$/);
  });
});
