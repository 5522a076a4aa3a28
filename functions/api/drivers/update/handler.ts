import { updateDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverRef } from '../../refs';
import { driverView } from '../views';
import { updateDriver as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const driver = await updateDriver(driverRef(caller, params), {
    name: body.driver_name,
    loginToken: body.login_token,
  });
  return { driver: driverView(driver) };
});
