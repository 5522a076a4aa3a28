import { completionTime } from '../../../domain/route-reports';
import { httpHandler } from '../../http-handler';
import { getCompletionTime as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) =>
  completionTime({ accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id }),
);
