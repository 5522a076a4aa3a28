import { deliveryLog } from '../../../domain/webhooks';
import { httpHandler } from '../../http-handler';
import { deliveryAttemptView } from '../views';
import { listWebhookDeliveries as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await deliveryLog(caller.accountId, params.id, {
    limit: query.limit,
    nextToken: query.next_token,
  });
  return { deliveries: page.items.map(deliveryAttemptView), next_token: page.nextToken };
});
