import { finishDriverRoutes } from '../../../domain/route-lifecycle';
import { httpHandler } from '../../http-handler';
import { driverRef } from '../../refs';
import { finishDriverRoutes as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const finalized = await finishDriverRoutes(driverRef(caller, params));
  return { finalized_route_ids: finalized };
});
