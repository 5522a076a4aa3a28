import { deactivateRoute } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { deactivateRoute as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await deactivateRoute(routeRef(caller, params));
  return { route: routeView(route) };
});
