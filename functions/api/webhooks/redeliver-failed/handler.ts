import { redeliverFailed } from '../../../domain/webhooks';
import { httpHandler, WithStatus } from '../../http-handler';
import { redeliveryView } from '../views';
import { redeliverFailedWebhookDeliveries as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const { redeliveries, nextToken } = await redeliverFailed(caller.accountId, params.id, {
    since: body.since,
    until: body.until,
    limit: body.limit,
    nextToken: body.next_token,
  });
  return new WithStatus(202, { redeliveries: redeliveries.map(redeliveryView), next_token: nextToken });
});
