import { createWebhook } from '../../../domain/webhooks';
import { httpHandler } from '../../http-handler';
import { webhookView } from '../views';
import { createWebhook as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ body, caller }) => {
  const { webhook, secret } = await createWebhook(caller.accountId, {
    url: body.webhook_url,
    events: body.events,
    dcIds: body.dc_ids,
  });
  return { webhook: { ...webhookView(webhook), secret } };
});
