import { listDcs } from '../data/accounts';
import type { PageRequest } from '../data/pagination';
import { listDeliveryAttempts } from '../data/webhook-deliveries';
import type { Webhook } from '../data/webhooks';
import * as webhooksTable from '../data/webhooks';
import { randomId, randomSecret } from '../shared/crypto';
import { ApiError, ConflictError, NotFoundError } from '../shared/errors';
import { ACCOUNT_LIMITS } from '../shared/limits';
import { sendToQueue } from '../shared/queues';
import { type DeliveryMessage, SUBSCRIBABLE_EVENTS, type SubscribableEvent } from './webhook-events';

export type { Webhook };

const MAX_URL_LENGTH = 2048;

/**
 * Webhooks an account may have at once: MAX_WEBHOOKS_PER_ACCOUNT (set by CDK from the context value
 * maxWebhooksPerAccount), ACCOUNT_LIMITS.webhooks without it.
 */
export function maxWebhooksPerAccount(): number {
  const text = process.env.MAX_WEBHOOKS_PER_ACCOUNT;
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

/** 4001 unless `url` is a fully formed http(s) URL with a host and no credentials. */
function requireWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ApiError('WEBHOOK_URL_INVALID', `webhook_url: '${url.slice(0, 200)}' is not a URL`);
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
              : undefined;
  if (problem) throw new ApiError('WEBHOOK_URL_INVALID', `webhook_url ${problem}`);
  return url;
}

export async function createWebhook(
  accountId: string,
  input: { url: string; events: readonly string[]; dcIds: readonly string[] },
): Promise<Webhook> {
  const url = requireWebhookUrl(input.url);
  const unknown = input.events.filter((event) => !SUBSCRIBABLE_EVENTS.includes(event as SubscribableEvent));
  if (unknown.length > 0) {
    throw new ApiError(
      'UNKNOWN_EVENT_TYPE',
      `events: unknown event type ${unknown.map((event) => `'${event}'`).join(', ')}; known: ${SUBSCRIBABLE_EVENTS.join(', ')}`,
    );
  }
  const accountDcs = new Set((await listDcs(accountId)).map((dc) => dc.dcId));
  const foreign = input.dcIds.filter((dcId) => !accountDcs.has(dcId));
  if (foreign.length > 0) {
    throw new ConflictError(
      'WEBHOOK_DC_FORBIDDEN',
      `dc_ids: ${foreign.map((dcId) => `'${dcId}'`).join(', ')} ${foreign.length === 1 ? 'is' : 'are'} not a DC of this account`,
    );
  }
  const webhook: Webhook = {
    accountId,
    webhookId: randomId('wh_'),
    url,
    enabled: true,
    dcIds: [...new Set(input.dcIds)],
    events: [...new Set(input.events)] as SubscribableEvent[],
    secret: randomSecret('whsec_'),
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
  return webhook;
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
      occurred_at: Date.now(),
      details: {},
    },
    attempt: 1,
  };
  await sendToQueue('deliveries', message);
  return eventId;
}

function webhookNotFound(webhookId: string): NotFoundError {
  return new NotFoundError(`webhook '${webhookId}' not found`);
}
