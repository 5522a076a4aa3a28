import { deleteRoute } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { deleteRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteRoute({ accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id });
  return {};
});
