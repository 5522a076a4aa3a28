import { deleteRoute } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { deleteRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteRoute(routeRef(caller, params));
  return {};
});
