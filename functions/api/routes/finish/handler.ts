import { finishRoute } from '../../../domain/route-lifecycle';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { finishRoute as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await finishRoute(routeRef(caller, params), body?.timestamp ?? Date.now());
  return { route: routeView(route) };
});
