import { createWebhook } from '../../domain/webhooks';
import { createWebhook as endpoint } from '../../endpoints/webhooks';
import { httpHandler } from '../../shared/http-handler';
import { webhookView } from './views';

export const handler = httpHandler(endpoint, async ({ body, caller }) => {
  const { webhook, secret } = await createWebhook(caller.accountId, {
    url: body.webhook_url,
    events: body.events,
    dcIds: body.dc_ids,
  });
  return { webhook: { ...webhookView(webhook), secret } };
});
