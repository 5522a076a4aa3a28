import { finishRoute } from '../../../domain/route-lifecycle';
import { httpHandler } from '../../http-handler';
import { routeView } from '../../routes/views';
import { finishDriverRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => ({
  route: routeView(await finishRoute({ ...caller, routeId: params.route_id }, body.timestamp)),
}));
