import { finishDriverRoutes } from '../../domain/drivers';
import { finishDriverRoutes as endpoint } from '../../endpoints/drivers';
import { httpHandler } from '../../shared/http-handler';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const finalized = await finishDriverRoutes({
    accountId: caller.accountId,
    dcId: params.dc_id,
    driverId: params.driver_id,
  });
  return { finalized_route_ids: finalized };
});
