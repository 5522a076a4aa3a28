import { finishDriverRoutes } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { finishDriverRoutes as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const finalized = await finishDriverRoutes({
    accountId: caller.accountId,
    dcId: params.dc_id,
    driverId: params.driver_id,
  });
  return { finalized_route_ids: finalized };
});
