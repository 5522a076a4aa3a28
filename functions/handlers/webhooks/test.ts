import { sendTestEvent } from '../../domain/webhooks';
import { testWebhook as endpoint } from '../../endpoints/webhooks';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  event_id: await sendTestEvent(caller.accountId, params.id),
}));
