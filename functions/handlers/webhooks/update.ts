import { setWebhookEnabled } from '../../domain/webhooks';
import { updateWebhook as endpoint } from '../../endpoints/webhooks';
import { httpHandler } from '../../shared/http-handler';
import { webhookView } from './views';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => ({
  webhook: webhookView(await setWebhookEnabled(caller.accountId, params.id, body.enabled)),
}));
