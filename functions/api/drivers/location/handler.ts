import { requireDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverLocationView } from '../views';
import { getDriverLocation as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const driver = await requireDriver({
    accountId: caller.accountId,
    dcId: params.dc_id,
    driverId: params.driver_id,
  });
  return { driver_location: driverLocationView(driver) };
});
