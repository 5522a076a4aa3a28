import { sendTestEvent } from '../../../domain/webhooks';
import { httpHandler } from '../../http-handler';
import { testWebhook as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  event_id: await sendTestEvent(caller.accountId, params.id),
}));
