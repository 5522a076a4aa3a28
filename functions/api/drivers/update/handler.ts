import { updateDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverView } from '../views';
import { updateDriver as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const driver = await updateDriver(
    { accountId: caller.accountId, dcId: params.dc_id, driverId: params.driver_id },
    { name: body.driver_name, loginToken: body.login_token },
  );
  return { driver: driverView(driver) };
});
