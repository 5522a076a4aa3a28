import { startRoute } from '../../../domain/route-start';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { startRoute as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await startRoute(routeRef(caller, params), body?.timestamp ?? Date.now());
  return { route: routeView(route) };
});
