import { createDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { dcRef } from '../../refs';
import { driverView } from '../views';
import { createDriver as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const driver = await createDriver(
    { ...dcRef(caller, params), driverId: body.driver_id },
    { name: body.driver_name, loginToken: body.login_token },
  );
  return { driver: driverView(driver) };
});
