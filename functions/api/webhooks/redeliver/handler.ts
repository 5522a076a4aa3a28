import { redeliver } from '../../../domain/webhooks';
import { httpHandler, WithStatus } from '../../http-handler';
import { redeliveryView } from '../views';
import { redeliverWebhookDelivery as endpoint } from './endpoint';

export const handler = httpHandler(
  endpoint,
  async ({ params, caller }) =>
    new WithStatus(202, redeliveryView(await redeliver(caller.accountId, params.id, params.delivery_id))),
);
