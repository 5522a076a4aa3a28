import { deleteDriver } from '../../domain/drivers';
import { deleteDriver as endpoint } from '../../endpoints/drivers';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteDriver({ accountId: caller.accountId, dcId: params.dc_id, driverId: params.driver_id });
  return {};
});
