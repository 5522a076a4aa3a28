import { assignDriver } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { assignDriver as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await assignDriver(routeRef(caller, params), body.driver_id);
  return { route: routeView(route) };
});
