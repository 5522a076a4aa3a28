import { listDcs } from '../data/accounts';
import type { PageRequest } from '../data/pagination';
import { listDeliveryAttempts } from '../data/webhook-deliveries';
import type { Webhook } from '../data/webhooks';
import * as webhooksTable from '../data/webhooks';
import { randomId, randomSecret } from '../shared/crypto';
import { ApiError, ConflictError, NotFoundError } from '../shared/errors';
import { sendToQueue } from '../shared/queues';
import { quote, quoteList } from '../shared/quote';
import { type DeliveryMessage, SUBSCRIBABLE_EVENTS, type SubscribableEvent } from './webhook-events';

export type { Webhook };

const MAX_URL_LENGTH = 2048;

/** 4001 unless `url` is a fully formed http(s) URL with a host and no credentials. */
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
  await webhooksTable.putNewWebhook(webhook);
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
  if (!(await webhooksTable.deleteWebhook(accountId, webhookId))) throw webhookNotFound(webhookId);
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
  return new NotFoundError(`webhook ${quote(webhookId)} not found`);
}
