import { startRoute } from '../../../domain/route-start';
import { httpHandler } from '../../http-handler';
import { routeView } from '../../routes/views';
import { startDriverRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => ({
  route: routeView(await startRoute({ ...caller, routeId: params.route_id }, body.timestamp)),
}));
