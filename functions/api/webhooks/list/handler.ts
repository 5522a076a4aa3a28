import { listWebhooks } from '../../../domain/webhooks';
import { httpHandler } from '../../http-handler';
import { webhookView } from '../views';
import { listWebhooks as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ caller }) => ({
  webhooks: (await listWebhooks(caller.accountId)).map(webhookView),
}));
