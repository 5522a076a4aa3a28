import { requireDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverView } from '../views';
import { getDriver as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const driver = await requireDriver({
    accountId: caller.accountId,
    dcId: params.dc_id,
    driverId: params.driver_id,
  });
  return { driver: driverView(driver) };
});
