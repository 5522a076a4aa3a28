import {
  type DeliveryStatus,
  newDeliveryId,
  recordDeliveryAttempt,
  recordDeliveryOutcome,
  setRedeliveryStatus,
} from '../data/webhook-deliveries';
import {
  getWebhook,
  listWebhooks,
  recordWebhookSuccess,
  setWebhookEnabled,
  startWebhookFailureRun,
  type Webhook,
} from '../data/webhooks';
import type { DeliveryMessage } from '../models/channels';
import * as channels from '../models/channels';
import { isSubscribableEvent, type WebhookEvent, webhookBody } from '../models/event-catalog';
import { config, type Environment } from '../shared/config';
import { logger } from '../shared/observability';
import { sharedWhileInFlight } from '../shared/parallel';
import { delaySecondsFor, send, sendAll, sendToDeadLetter } from '../shared/queues';
import { deliveryHeaders, postWebhook } from './webhook-http';
import { signingSecrets, UnreadableSecretError } from './webhook-secrets';

// The event catalog declares the types, the events as queued and the body receivers get.
export {
  SUBSCRIBABLE_EVENTS,
  type SubscribableEvent,
  type WebhookEvent,
  webhookBody,
} from '../models/event-catalog';

/**
 * The reads of the fan-out and of a delivery, shared by the records of a batch that need the same item (the
 * consumers handle a batch's records at once): a batch of ten events of one account queries its webhooks
 * once, not ten times, and ten deliveries to three webhooks read three items, not ten. Only reads in flight
 * are shared, per account (and webhook): one account's records never wait on another's read, and a read
 * that started after a change sees it.
 */
const webhooksOf = sharedWhileInFlight((accountId: string) => accountId, listWebhooks);
const webhookOf = sharedWhileInFlight(
  (accountId: string, webhookId: string) => `${accountId}/${webhookId}`,
  getWebhook,
);

/**
 * A webhook's failure run (what disables it after `disableAfterMs`) costs its item a write only when it
 * starts or ends, not per delivery: a failure starts one only when the item shows none going on, and a success
 * ends one only when the item shows one going on and no success was recorded within `runPrecisionMs`.
 * A receiver that fails one delivery in five thus writes the item about twice a precision window, not twice
 * per failure. The price: a run may be taken to have started up to that window early. Deliveries of a batch
 * to one webhook that start (or end) a run at the same time write the item once: a call joins a write in
 * flight.
 */
const startFailureRun = sharedWhileInFlight(
  (accountId: string, webhookId: string, _at: number) => `${accountId}/${webhookId}`,
  startWebhookFailureRun,
);
const recordSuccess = sharedWhileInFlight(
  (accountId: string, webhookId: string, _at: number) => `${accountId}/${webhookId}`,
  recordWebhookSuccess,
);

/** How far off a failure run's start may be: 1 % of the time that disables a webhook, at most a minute. */
const runPrecisionMs = (settings: DeliverySettings) => Math.min(60_000, settings.disableAfterMs / 100);

/** The start of the failure run going on as the webhook's item tells it (a failure after the last recorded success). */
function failureRunStart(webhook: Pick<Webhook, 'failingSince' | 'succeededAt'>): number | undefined {
  const { failingSince, succeededAt } = webhook;
  return failingSince !== undefined && (succeededAt === undefined || failingSince > succeededAt)
    ? failingSince
    : undefined;
}

/** Whether a success at `at` is recorded: it ends a run going on, unless one was recorded lately. */
function endsFailureRun(webhook: Webhook, at: number, settings: DeliverySettings): boolean {
  if (failureRunStart(webhook) === undefined) return false;
  return webhook.succeededAt === undefined || at - webhook.succeededAt >= runPrecisionMs(settings);
}

/** Queues one delivery per enabled webhook of the account subscribed to the event's type and DC. */
export async function fanOut(accountId: string, event: WebhookEvent): Promise<number> {
  const webhooks = (await webhooksOf(accountId)).filter(
    (webhook) =>
      webhook.enabled &&
      isSubscribableEvent(event.type) &&
      webhook.events.includes(event.type) &&
      event.dc_id !== null &&
      webhook.dcIds.includes(event.dc_id),
  );
  await sendAll(
    channels.deliveries,
    webhooks.map(
      (webhook): DeliveryMessage => ({
        account_id: accountId,
        webhook_id: webhook.webhookId,
        event,
        attempt: 1,
      }),
    ),
  );
  return webhooks.length;
}

export interface DeliverySettings {
  /** Wait before each retry, in seconds; when they are used up the delivery ends FAILED. */
  retryDelaysSeconds: readonly number[];
  timeoutMs: number;
  /** The SSRF guard is off (`privateTargetsAllowed`). */
  allowPrivateTargets: boolean;
  /** A webhook whose deliveries kept failing this long is disabled. */
  disableAfterMs: number;
}

/** About 1, 5, 15 and 30 minutes, then hourly: the last retry comes 7 h 51 min after the first attempt. */
const DEFAULT_RETRY_DELAYS_SECONDS = [60, 300, 900, 1800, 3600, 3600, 3600, 3600, 3600, 3600, 3600];

/**
 * How long a redelivery's mark holds (domain/webhooks.ts). Before a redelivery is queued its original is
 * marked by a conditional write; one still pending after this long is taken as never queued
 * (the call that marked it died before queueing it), so the original can be marked again. A day: about
 * three times the longest a queued redelivery stays pending on the schedule (7 h 51 min of waits and 12
 * attempts of at most 10 s), and deliverySettings refuses a schedule that could outlast it. Should a queued
 * redelivery still be pending after a day (a deliveries queue stalled that long), the worst case is the
 * event sent once more, which receivers deduplicate by `webhook-id` anyway.
 */
export const REDELIVERY_MARK_HOLDS_MS = 24 * 3_600_000;

/**
 * Whether webhooks may target loopback, private and other internal addresses: only with
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` (the local runtime's default, for receivers on 127.0.0.1). Otherwise
 * webhook create refuses such an address written in the URL and delivery refuses a host resolving to one.
 */
export function privateTargetsAllowed(env: Environment = config().environment): boolean {
  return env.WEBHOOK_ALLOW_PRIVATE_TARGETS === 'true';
}

/** From the environment (tests and the bench shorten the schedule); the defaults are those of docs/api.md §7. */
export function deliverySettings(env: Environment = config().environment): DeliverySettings {
  const delays = env.WEBHOOK_RETRY_DELAYS_SECONDS?.split(',').map(Number);
  if (delays?.some((delay) => !Number.isFinite(delay) || delay < 0)) {
    throw new Error(
      `WEBHOOK_RETRY_DELAYS_SECONDS must be comma-separated seconds, not '${env.WEBHOOK_RETRY_DELAYS_SECONDS}'`,
    );
  }
  const settings = {
    retryDelaysSeconds: delays ?? DEFAULT_RETRY_DELAYS_SECONDS,
    timeoutMs: Number(env.WEBHOOK_TIMEOUT_MS ?? 10_000),
    allowPrivateTargets: privateTargetsAllowed(env),
    disableAfterMs: Number(env.WEBHOOK_DISABLE_AFTER_SECONDS ?? 86_400) * 1000,
  };
  const { retryDelaysSeconds, timeoutMs } = settings;
  const longestPendingMs =
    retryDelaysSeconds.reduce((sum, delay) => sum + delay, 0) * 1000 +
    (retryDelaysSeconds.length + 1) * timeoutMs;
  if (longestPendingMs >= REDELIVERY_MARK_HOLDS_MS) {
    throw new Error(
      `WEBHOOK_RETRY_DELAYS_SECONDS and WEBHOOK_TIMEOUT_MS keep a delivery pending up to ${longestPendingMs} ms, longer than a redelivery's mark holds (${REDELIVERY_MARK_HOLDS_MS} ms)`,
    );
  }
  return settings;
}

export type DeliveryOutcome =
  | 'delivered'
  | 'retry_queued'
  | 'waiting'
  | 'given_up'
  | 'refused'
  | 'skipped'
  | 'disabled';

/**
 * One delivery attempt:
 * 1. a deleted webhook gets nothing; a disabled one neither, and the delivery is recorded FAILED so it can
 *    be redelivered once the webhook is enabled again;
 * 2. a message that is not due yet is queued again for the rest of its wait;
 * 3. POSTs the signed body (SSRF guard, timeout, no redirects), logs the attempt and records where the
 *    delivery stands (with the event, so it can be redelivered);
 * 4. a 2xx ends the webhook's failure run; a failure starts or continues it, and a run longer than
 *    `disableAfterMs` disables the webhook;
 * 5. a target the SSRF guard refuses ends the delivery FAILED, with the reason in its log (no retry, no DLQ:
 *    the tenant's URL is at fault, not the service);
 * 6. otherwise a failed attempt is queued again after the next delay of the schedule, or, when the
 *    schedule is used up, the delivery ends FAILED with a warning (no DLQ either: the receiver is at fault).
 * The deliveries DLQ holds only what the service could not handle: a message the worker failed on
 * `maxReceiveCount` times, a secret that does not decrypt.
 */
export async function deliver(
  message: DeliveryMessage,
  settings: DeliverySettings,
): Promise<DeliveryOutcome> {
  const { account_id: accountId, webhook_id: webhookId, event } = message;
  const webhook = await webhookOf(accountId, webhookId);
  if (!webhook) return 'skipped';
  const now = Date.now();
  const firstAttemptAt = message.first_attempt_at ?? now;
  const deliveryId = message.delivery_id ?? newDeliveryId(firstAttemptAt);
  const record = (status: DeliveryStatus, at: number, error?: string) =>
    recordOutcome(message, { deliveryId, firstAttemptAt, status, at, error });
  if (!webhook.enabled) {
    await record('FAILED', now, 'webhook disabled');
    return 'skipped';
  }
  if (message.due_at !== undefined && message.due_at > now + 1000) {
    await send(channels.deliveries, message, { delaySeconds: delaySecondsFor(message.due_at - now) });
    return 'waiting';
  }
  let secrets: string[];
  try {
    secrets = await signingSecrets(webhook, now);
  } catch (error) {
    if (!(error instanceof UnreadableSecretError)) throw error;
    return giveUpUnreadableSecret(message, deliveryId, now, record);
  }

  const body = webhookBody(event);
  const sentAt = Date.now();
  const result = await postWebhook({
    url: webhook.url,
    body,
    headers: deliveryHeaders(webhookId, event, secrets, sentAt, body),
    timeoutMs: settings.timeoutMs,
    allowPrivateTargets: settings.allowPrivateTargets,
  });
  const logged = recordDeliveryAttempt(accountId, webhookId, {
    deliveryId,
    redeliveryOf: message.redelivery_of,
    eventId: event.event_id,
    eventType: event.type,
    attempt: message.attempt,
    statusCode: result.statusCode,
    error: result.ok ? undefined : result.error,
    durationMs: Math.round(result.durationMs),
    timestamp: sentAt,
  });
  if (result.ok) {
    await Promise.all([
      logged,
      record('SUCCEEDED', sentAt),
      endsFailureRun(webhook, sentAt, settings) ? recordSuccess(accountId, webhookId, sentAt) : undefined,
    ]);
    return 'delivered';
  }
  await logged;

  // Ids and the target's host only: the URL's path or query may carry the receiver's own credentials.
  const context = {
    account_id: accountId,
    dc_id: event.dc_id ?? undefined,
    webhook_id: webhookId,
    event_id: event.event_id,
    event_type: event.type,
    delivery_id: deliveryId,
    attempt: message.attempt,
    target_host: new URL(webhook.url).host,
    error: result.error,
  };
  // A run the item does not show yet starts now (or was started just now by a concurrent delivery).
  let failingSince = failureRunStart(webhook);
  if (failingSince === undefined) {
    await startFailureRun(accountId, webhookId, sentAt);
    failingSince = sentAt;
  }
  if (sentAt - failingSince >= settings.disableAfterMs) {
    await setWebhookEnabled(
      accountId,
      webhookId,
      false,
      `deliveries failed continuously since ${new Date(failingSince).toISOString()}`,
    );
    await record('FAILED', sentAt, result.error);
    logger.warn('webhook disabled after failing continuously', { ...context, failing_since: failingSince });
    return 'disabled';
  }
  if (result.refused) {
    // The tenant's URL is at fault, not the service: a retry would be refused again, and the DLQ and an error
    // line are the operator's, whom any tenant could otherwise page at will with `http://10.0.0.1/`.
    await record('FAILED', sentAt, result.error);
    logger.warn('webhook target refused by the SSRF guard', context);
    return 'refused';
  }
  const delaySeconds = settings.retryDelaysSeconds[message.attempt - 1];
  if (delaySeconds === undefined) {
    // The receiver failed every attempt: the tenant's to see and redeliver (the delivery log keeps the event),
    // not the operator's to be paged for, which any tenant could do with a URL that never answers.
    await record('FAILED', sentAt, result.error);
    logger.warn('webhook delivery given up after its retry schedule', context);
    return 'given_up';
  }
  // The first failure creates the delivery's record (PENDING); later ones leave it as it is.
  if (message.delivery_id === undefined || message.attempt === 1)
    await record('PENDING', sentAt, result.error);
  const retry: DeliveryMessage = {
    ...message,
    delivery_id: deliveryId,
    attempt: message.attempt + 1,
    first_attempt_at: firstAttemptAt,
    due_at: Date.now() + delaySeconds * 1000,
  };
  await send(channels.deliveries, retry, { delaySeconds: delaySecondsFor(delaySeconds * 1000) });
  logger.info('webhook delivery failed; retry queued', { ...context, retry_in_seconds: delaySeconds });
  return 'retry_queued';
}

/** What the delivery log says of a delivery whose secret does not decrypt (nothing of the why). */
export const UNREADABLE_SECRET_ERROR = 'signing secret unreadable; rotate the secret';

/**
 * A secret that does not decrypt for its webhook (its item was tampered with, or a sealed secret was copied
 * from another webhook) will not decrypt on a retry either: nothing is sent, the attempt and the delivery are
 * recorded FAILED (redeliverable once the secret is rotated), the message goes to the DLQ and an error is
 * logged, with ids only. The queue goes on with the next message.
 */
async function giveUpUnreadableSecret(
  message: DeliveryMessage,
  deliveryId: string,
  at: number,
  record: (status: DeliveryStatus, at: number, error?: string) => Promise<void>,
): Promise<DeliveryOutcome> {
  const { account_id: accountId, webhook_id: webhookId, event } = message;
  await recordDeliveryAttempt(accountId, webhookId, {
    deliveryId,
    redeliveryOf: message.redelivery_of,
    eventId: event.event_id,
    eventType: event.type,
    attempt: message.attempt,
    error: UNREADABLE_SECRET_ERROR,
    durationMs: 0,
    timestamp: at,
  });
  await record('FAILED', at, UNREADABLE_SECRET_ERROR);
  await sendToDeadLetter(channels.deliveries, { ...message, delivery_id: deliveryId });
  logger.error('webhook signing secret does not decrypt; delivery given up', {
    account_id: accountId,
    webhook_id: webhookId,
    event_id: event.event_id,
    delivery_id: deliveryId,
    attempt: message.attempt,
  });
  return 'given_up';
}

/** Writes the delivery's record; a redelivery also tells its original delivery how it stands. */
async function recordOutcome(
  message: DeliveryMessage,
  outcome: {
    deliveryId: string;
    firstAttemptAt: number;
    status: DeliveryStatus;
    at: number;
    error?: string;
  },
): Promise<void> {
  const { account_id: accountId, webhook_id: webhookId, event, redelivery_of: originalId } = message;
  await recordDeliveryOutcome(accountId, webhookId, {
    ...outcome,
    redeliveryOf: originalId,
    eventId: event.event_id,
    eventType: event.type,
    eventJson: JSON.stringify(event),
    attempt: message.attempt,
  });
  if (originalId !== undefined && outcome.status !== 'PENDING') {
    await setRedeliveryStatus(accountId, webhookId, originalId, outcome.deliveryId, outcome.status);
  }
}
