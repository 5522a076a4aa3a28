import { listWebhooks } from '../../domain/webhooks';
import { listWebhooks as endpoint } from '../../endpoints/webhooks';
import { httpHandler } from '../../shared/http-handler';
import { webhookView } from './views';

export const handler = httpHandler(endpoint, async ({ caller }) => ({
  webhooks: (await listWebhooks(caller.accountId)).map(webhookView),
}));
