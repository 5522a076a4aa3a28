import { deleteRoute } from '../../domain/routes';
import { deleteRoute as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteRoute({ accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id });
  return {};
});
