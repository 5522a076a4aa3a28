import { deleteWebhook } from '../../domain/webhooks';
import { deleteWebhook as endpoint } from '../../endpoints/webhooks';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteWebhook(caller.accountId, params.id);
  return {};
});
