import { deliveryLog } from '../../domain/webhooks';
import { listWebhookDeliveries as endpoint } from '../../endpoints/webhooks';
import { httpHandler } from '../../shared/http-handler';
import { deliveryAttemptView } from './views';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  deliveries: (await deliveryLog(caller.accountId, params.id)).map(deliveryAttemptView),
}));
