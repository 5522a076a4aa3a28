import { getRoute } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { getRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await getRoute(routeRef(caller, params));
  return { route: routeView(route) };
});
