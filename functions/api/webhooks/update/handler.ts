import { setWebhookEnabled } from '../../../domain/webhooks';
import { httpHandler } from '../../http-handler';
import { webhookView } from '../views';
import { updateWebhook as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => ({
  webhook: webhookView(await setWebhookEnabled(caller.accountId, params.id, body.enabled)),
}));
