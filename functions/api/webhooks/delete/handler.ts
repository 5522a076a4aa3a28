import { deleteWebhook } from '../../../domain/webhooks';
import { httpHandler } from '../../http-handler';
import { deleteWebhook as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteWebhook(caller.accountId, params.id);
  return {};
});
