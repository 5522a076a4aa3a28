import { listDcs } from '../data/accounts';
import type { PageRequest } from '../data/pagination';
import type { SealedSecret } from '../data/secret-envelope';
import {
  type Delivery,
  failedDeliveriesInWindow,
  getDelivery,
  listDeliveryAttempts,
  markRedelivery,
  newDeliveryId,
  recordDeliveryOutcome,
  setRedeliveryStatus,
} from '../data/webhook-deliveries';
import type { Webhook } from '../data/webhooks';
import * as webhooksTable from '../data/webhooks';
import type { DeliveryMessage } from '../models/channels';
import * as channels from '../models/channels';
import { config } from '../shared/config';
import { randomId } from '../shared/crypto';
import { ApiError, ConflictError, NotFoundError } from '../shared/errors';
import { ACCOUNT_LIMITS, MAX_DELIVERIES_EXAMINED_PER_CALL } from '../shared/limits';
import { chunks, inParallel } from '../shared/parallel';
import { send, sendAll } from '../shared/queues';
import { quote, quoteList } from '../shared/quote';
import {
  privateTargetsAllowed,
  REDELIVERY_MARK_HOLDS_MS,
  SUBSCRIBABLE_EVENTS,
  type SubscribableEvent,
  type WebhookEvent,
} from './webhook-events';
import { BLOCKED_KINDS, isBlockedLiteralHost, newWebhookSecret } from './webhook-http';
import { sealWebhookSecrets } from './webhook-secrets';

export type { Webhook };

const MAX_URL_LENGTH = 2048;

/**
 * Webhooks an account may have at once: MAX_WEBHOOKS_PER_ACCOUNT (set by CDK from the context value
 * maxWebhooksPerAccount), ACCOUNT_LIMITS.webhooks without it.
 */
export function maxWebhooksPerAccount(): number {
  const env = config().environment;
  const text = env.MAX_WEBHOOKS_PER_ACCOUNT;
  if (text === undefined || text === '') return ACCOUNT_LIMITS.webhooks;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > ACCOUNT_LIMITS.maxWebhooks)
    throw new Error(`MAX_WEBHOOKS_PER_ACCOUNT must be 1..${ACCOUNT_LIMITS.maxWebhooks}, not '${text}'`);
  return value;
}

/**
 * The URL as two webhooks are compared: WHATWG-serialized (scheme and host lower-cased, default port and
 * `.`/`..` segments dropped, an empty path made `/`), without the fragment, which no request carries. Path,
 * query and their case stay as given: servers may tell them apart.
 */
export function normalizedWebhookUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/** What a webhook holds: each of its event types at its URL. */
function targetsOf(webhook: Pick<Webhook, 'url' | 'events'>): webhooksTable.WebhookTarget[] {
  const url = normalizedWebhookUrl(webhook.url);
  return webhook.events.map((event) => ({ event, url }));
}

/**
 * 4001 unless `url` is a fully formed http(s) URL with a host and no credentials, and, while the SSRF guard
 * is on, whose host is not an address the guard refuses (a host name is judged when delivering, as what it
 * resolves to may change).
 */
function requireWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError('WEBHOOK_URL_INVALID', `webhook_url: ${quote(url)} is not a URL`);
  }
  const problem =
    url.length > MAX_URL_LENGTH
      ? `is longer than ${MAX_URL_LENGTH} characters`
      : parsed.protocol !== 'http:' && parsed.protocol !== 'https:'
        ? `has scheme '${parsed.protocol.replace(/:$/, '')}'; only http and https are allowed`
        : parsed.hostname === ''
          ? 'has no host'
          : parsed.username || parsed.password
            ? 'must not carry credentials'
            : /\s/.test(url)
              ? 'contains whitespace'
              : !privateTargetsAllowed() && isBlockedLiteralHost(parsed)
                ? `has a blocked address as its host (${BLOCKED_KINDS})`
                : undefined;
  if (problem) throw new ApiError('WEBHOOK_URL_INVALID', `webhook_url ${problem}`);
  return url;
}

/** A new webhook, and its secret in plain text: the caller's only chance to see it (the item holds it sealed). */
export async function createWebhook(
  accountId: string,
  input: { url: string; events: readonly string[]; dcIds: readonly string[] },
): Promise<{ webhook: Webhook; secret: string }> {
  const url = requireWebhookUrl(input.url);
  const unknown = input.events.filter((event) => !SUBSCRIBABLE_EVENTS.includes(event as SubscribableEvent));
  if (unknown.length > 0) {
    throw new ApiError(
      'UNKNOWN_EVENT_TYPE',
      `events: unknown event type ${quoteList(unknown)}; known: ${SUBSCRIBABLE_EVENTS.join(', ')}`,
    );
  }
  const accountDcs = new Set((await listDcs(accountId)).map((dc) => dc.dcId));
  const foreign = input.dcIds.filter((dcId) => !accountDcs.has(dcId));
  if (foreign.length > 0) {
    throw new ConflictError(
      'WEBHOOK_DC_FORBIDDEN',
      `dc_ids: ${quoteList(foreign)} ${foreign.length === 1 ? 'is' : 'are'} not a DC of this account`,
    );
  }
  const webhookId = randomId('wh_');
  const secret = newWebhookSecret();
  const [sealed] = await sealWebhookSecrets(accountId, webhookId, [secret]);
  const webhook: Webhook = {
    accountId,
    webhookId,
    url,
    enabled: true,
    dcIds: [...new Set(input.dcIds)],
    events: [...new Set(input.events)] as SubscribableEvent[],
    secret: sealed as SealedSecret,
    createdAt: Date.now(),
  };
  const max = maxWebhooksPerAccount();
  try {
    await webhooksTable.putNewWebhook(webhook, { max, targets: targetsOf(webhook) });
  } catch (error) {
    if (error instanceof webhooksTable.WebhookTargetTaken) {
      throw new ApiError(
        'WEBHOOK_DUPLICATE',
        `webhook_url: another webhook of this account already sends ${error.target.event} to this URL ` +
          '(one webhook per URL and event type; delete the other, or register other event types)',
      );
    }
    if (error instanceof webhooksTable.WebhookLimitReached) {
      throw new ApiError(
        'WEBHOOK_LIMIT_REACHED',
        `webhooks: the account has ${max} webhooks, as many as it may have; delete one to add another`,
      );
    }
    throw error;
  }
  return { webhook, secret };
}

export async function requireWebhook(accountId: string, webhookId: string): Promise<Webhook> {
  const webhook = await webhooksTable.getWebhook(accountId, webhookId);
  if (!webhook) throw webhookNotFound(webhookId);
  return webhook;
}

export const listWebhooks = webhooksTable.listWebhooks;

export async function setWebhookEnabled(
  accountId: string,
  webhookId: string,
  enabled: boolean,
): Promise<Webhook> {
  const webhook = await webhooksTable.setWebhookEnabled(accountId, webhookId, enabled);
  if (!webhook) throw webhookNotFound(webhookId);
  return webhook;
}

export async function deleteWebhook(accountId: string, webhookId: string): Promise<void> {
  if (!(await webhooksTable.deleteWebhook(accountId, webhookId, targetsOf))) throw webhookNotFound(webhookId);
}

/** One page of the webhook's delivery attempts, newest first. */
export async function deliveryLog(accountId: string, webhookId: string, page: PageRequest) {
  await requireWebhook(accountId, webhookId);
  return listDeliveryAttempts(accountId, webhookId, page);
}

/** Queues a PING to the webhook (whatever its event types), delivered and retried like any event. */
export async function sendTestEvent(accountId: string, webhookId: string): Promise<string> {
  await requireWebhook(accountId, webhookId);
  const eventId = randomId('evt_');
  const message: DeliveryMessage = {
    account_id: accountId,
    webhook_id: webhookId,
    event: {
      event_id: eventId,
      type: 'PING',
      dc_id: null,
      route_id: null,
      sequence: null,
      occurred_at: Date.now(),
      details: {},
    },
    attempt: 1,
  };
  await send(channels.deliveries, message);
  return eventId;
}

// ---- Secret rotation ----

/**
 * Gives the webhook a new secret. For `expirePreviousAfterSeconds` deliveries carry signatures for both the
 * new and the replaced secret, so receivers can switch at any moment of it; 0 stops the replaced one at once.
 * A rotation during another's grace period ends that grace: only the current and the replaced secret sign.
 * The new secret is stored sealed; a replaced secret stored in plain text (before secrets were encrypted) is
 * sealed too, so after a rotation the item holds no plain secret.
 */
export async function rotateSecret(
  accountId: string,
  webhookId: string,
  expirePreviousAfterSeconds: number,
): Promise<{ webhook: Webhook; secret: string; previousSecretExpiresAt: number }> {
  const now = Date.now();
  const previousSecretExpiresAt = now + expirePreviousAfterSeconds * 1000;
  const keepPrevious = expirePreviousAfterSeconds > 0;
  const secret = newWebhookSecret();
  // A few tries: when a concurrent rotation (or a write of the secret) came first, the item is read again.
  for (let tries = 1; ; tries++) {
    const current = keepPrevious ? await requireWebhook(accountId, webhookId) : undefined;
    const plain = typeof current?.secret === 'string' ? current.secret : undefined;
    const [sealed, sealedPlain] = await sealWebhookSecrets(
      accountId,
      webhookId,
      plain === undefined ? [secret] : [secret, plain],
    );
    const webhook = await webhooksTable.rotateWebhookSecret(
      accountId,
      webhookId,
      sealed as SealedSecret,
      keepPrevious ? previousSecretExpiresAt : undefined,
      plain === undefined ? undefined : { was: plain, sealed: sealedPlain as SealedSecret },
    );
    if (webhook) return { webhook, secret, previousSecretExpiresAt };
    if (!keepPrevious || tries === 3) {
      await requireWebhook(accountId, webhookId);
      throw new Error(`webhook '${webhookId}' kept changing while its secret was being rotated`);
    }
  }
}

// ---- Redelivery ----

/** A redelivery request's answer: the new delivery, and the delivery it sends again. */
export interface Redelivery {
  deliveryId: string;
  redeliveryOf: string;
}

/** The webhook, if it can take redeliveries now: 4011 while it is disabled (they would only be dropped). */
async function requireEnabledWebhook(accountId: string, webhookId: string): Promise<Webhook> {
  const webhook = await requireWebhook(accountId, webhookId);
  if (!webhook.enabled) {
    throw new ApiError(
      'WEBHOOK_DISABLED',
      `webhook '${webhookId}' is disabled: enable it (PATCH /webhooks/${webhookId} with {"enabled": true}) before redelivering`,
    );
  }
  return webhook;
}

const redeliveryMessage = (accountId: string, webhookId: string, original: Delivery, redeliveryId: string) =>
  ({
    account_id: accountId,
    webhook_id: webhookId,
    event: JSON.parse(original.eventJson) as WebhookEvent,
    attempt: 1,
    delivery_id: redeliveryId,
    redelivery_of: original.deliveryId,
  }) satisfies DeliveryMessage;

/** Marks made before this time have expired: their redeliveries are taken as never queued. */
const markExpiredBefore = (now: number) => now - REDELIVERY_MARK_HOLDS_MS;

/**
 * Sends one past delivery again: the same event (same body, same `webhook-id`) as a new delivery, signed
 * afresh and retried on the schedule. A redelivery of a redelivery sends its original again. While a
 * redelivery of it is still pending, that one is answered and nothing more is sent, so a repeated call does
 * not send the event twice; once it has ended, or its mark has expired (never queued), a call sends the
 * event again.
 */
export async function redeliver(
  accountId: string,
  webhookId: string,
  deliveryId: string,
): Promise<Redelivery> {
  await requireEnabledWebhook(accountId, webhookId);
  const requested = await getDelivery(accountId, webhookId, deliveryId);
  if (!requested) {
    throw new NotFoundError(`delivery '${deliveryId}' of webhook '${webhookId}' not found`);
  }
  const originalId = requested.redeliveryOf ?? requested.deliveryId;
  let original =
    originalId === requested.deliveryId ? requested : await getDelivery(accountId, webhookId, originalId);
  // Two tries: a concurrent call may win the first; its redelivery is then the answer.
  for (let tries = 1; ; tries++) {
    if (!original) {
      throw new NotFoundError(`delivery '${originalId}' of webhook '${webhookId}' not found (expired)`);
    }
    if (original.status === 'PENDING') {
      throw new ApiError(
        'WEBHOOK_DELIVERY_PENDING',
        `delivery '${originalId}' is still being retried on its schedule; redeliver it once it has ended`,
      );
    }
    if (
      original.redeliveredAs !== undefined &&
      original.redeliveryStatus === 'PENDING' &&
      (original.redeliveryRequestedAt ?? 0) >= markExpiredBefore(Date.now())
    ) {
      return { deliveryId: original.redeliveredAs, redeliveryOf: originalId };
    }
    const marked = await markEach(accountId, webhookId, [original], { onlyIfFailed: false });
    if (marked.length > 0) {
      await queueRedeliveries(accountId, webhookId, marked);
      return { deliveryId: (marked[0] as RedeliveryMark).redeliveryId, redeliveryOf: originalId };
    }
    if (tries === 2) throw new Error(`delivery '${originalId}' kept changing while it was being redelivered`);
    original = await getDelivery(accountId, webhookId, originalId);
  }
}

/**
 * Re-queues the failed deliveries whose first attempt was in [since, until], oldest first, at most `limit`
 * (and at most MAX_DELIVERIES_EXAMINED_PER_CALL read) a call; `nextToken` continues the window. Each is
 * marked before it is queued, by a conditional write, so calling again (or twice at once) does not queue a
 * delivery whose redelivery is pending or succeeded; one whose redelivery failed is re-queued again, and so
 * is one whose pending redelivery's mark has expired (marked, then never queued).
 */
export async function redeliverFailed(
  accountId: string,
  webhookId: string,
  window: { since: number; until: number; limit: number; nextToken?: string },
): Promise<{ redeliveries: Redelivery[]; nextToken?: string }> {
  await requireEnabledWebhook(accountId, webhookId);
  const page = await failedDeliveriesInWindow(accountId, webhookId, {
    ...window,
    examine: MAX_DELIVERIES_EXAMINED_PER_CALL,
    markExpiredBefore: markExpiredBefore(Date.now()),
  });
  const marked = await markEach(accountId, webhookId, page.deliveries, { onlyIfFailed: true });
  await queueRedeliveries(accountId, webhookId, marked);
  return {
    redeliveries: marked.map(({ original, redeliveryId }) => ({
      deliveryId: redeliveryId,
      redeliveryOf: original.deliveryId,
    })),
    nextToken: page.nextToken,
  };
}

/** An original delivery marked as being sent again as `redeliveryId`. */
interface RedeliveryMark {
  original: Delivery;
  redeliveryId: string;
}

/**
 * Marks each original delivery for a new redelivery, in their order: marks it by a conditional write (of
 * two concurrent marks one wins; one that no longer stands as read is left out) and records the
 * redelivery as pending, so it can be named at once. When a write fails, the marks made are undone.
 */
async function markEach(
  accountId: string,
  webhookId: string,
  originals: readonly Delivery[],
  { onlyIfFailed }: { onlyIfFailed: boolean },
): Promise<RedeliveryMark[]> {
  const marks: (RedeliveryMark | undefined)[] = new Array(originals.length);
  try {
    await inParallel(
      originals.map((original, index) => ({ original, index })),
      10,
      async ({ original, index }) => {
        const at = Date.now();
        const redeliveryId = newDeliveryId(at);
        const mark = {
          redeliveryId,
          seen: original.redeliveredAs,
          onlyIfFailed,
          at,
          markExpiredBefore: markExpiredBefore(at),
        };
        if (!(await markRedelivery(accountId, webhookId, original.deliveryId, mark))) return;
        const marked = { original, redeliveryId };
        marks[index] = marked;
        await recordRedelivery(accountId, webhookId, marked, 'PENDING');
      },
    );
  } catch (error) {
    await undoMarks(
      accountId,
      webhookId,
      marks.filter((mark) => mark !== undefined),
    );
    throw error;
  }
  return marks.filter((mark) => mark !== undefined);
}

const recordRedelivery = (
  accountId: string,
  webhookId: string,
  { original, redeliveryId }: RedeliveryMark,
  status: 'PENDING' | 'FAILED',
  error?: string,
) =>
  recordDeliveryOutcome(accountId, webhookId, {
    deliveryId: redeliveryId,
    redeliveryOf: original.deliveryId,
    eventId: original.eventId,
    eventType: original.eventType,
    eventJson: original.eventJson,
    status,
    // None made yet.
    attempt: 0,
    error,
    firstAttemptAt: Date.now(),
    at: Date.now(),
  });

/**
 * Queues marked redeliveries, ten a request. When a batch cannot be queued, it and the rest have their
 * marks undone before the error goes on, so a later call can queue those deliveries.
 */
async function queueRedeliveries(accountId: string, webhookId: string, marks: readonly RedeliveryMark[]) {
  for (const [index, batch] of chunks(marks, 10).entries()) {
    try {
      await sendAll(
        channels.deliveries,
        batch.map(({ original, redeliveryId }) =>
          redeliveryMessage(accountId, webhookId, original, redeliveryId),
        ),
      );
    } catch (error) {
      await undoMarks(accountId, webhookId, marks.slice(index * 10));
      throw error;
    }
  }
}

/** Undoes marks whose redeliveries were never queued: they end FAILED, so the originals can be queued again. */
async function undoMarks(accountId: string, webhookId: string, marks: readonly RedeliveryMark[]) {
  await Promise.all(
    marks.flatMap((mark) => [
      recordRedelivery(accountId, webhookId, mark, 'FAILED', 'not queued'),
      setRedeliveryStatus(accountId, webhookId, mark.original.deliveryId, mark.redeliveryId, 'FAILED'),
    ]),
  );
}

function webhookNotFound(webhookId: string): NotFoundError {
  return new NotFoundError(`webhook ${quote(webhookId)} not found`);
}
