import { requireDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverRef } from '../../refs';
import { driverLocationView, driverView } from '../views';
import { getDriverBulkInfo as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const driver = await requireDriver(driverRef(caller, params));
  return { driver: driverView(driver), driver_location: driverLocationView(driver) };
});
