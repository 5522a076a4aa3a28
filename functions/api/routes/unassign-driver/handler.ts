import { unassignDriver } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { unassignDriver as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await unassignDriver(routeRef(caller, params));
  return { route: routeView(route) };
});
