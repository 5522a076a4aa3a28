import { finishRoute } from '../../domain/route-lifecycle';
import { finishDriverRoute as endpoint } from '../../endpoints/driver-app';
import { httpHandler } from '../../shared/http-handler';
import { routeView } from '../routes/views';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => ({
  route: routeView(await finishRoute({ ...caller, routeId: params.route_id }, body.timestamp)),
}));
