import { redeliver } from '../../domain/webhooks';
import { redeliverWebhookDelivery as endpoint } from '../../endpoints/webhooks';
import { httpHandler, WithStatus } from '../../shared/http-handler';
import { redeliveryView } from './views';

export const handler = httpHandler(
  endpoint,
  async ({ params, caller }) =>
    new WithStatus(202, redeliveryView(await redeliver(caller.accountId, params.id, params.delivery_id))),
);
