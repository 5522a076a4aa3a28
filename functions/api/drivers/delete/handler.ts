import { deleteDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { deleteDriver as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteDriver({ accountId: caller.accountId, dcId: params.dc_id, driverId: params.driver_id });
  return {};
});
