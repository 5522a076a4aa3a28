import { completionTime } from '../../domain/route-reports';
import { getCompletionTime as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) =>
  completionTime({ accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id }),
);
