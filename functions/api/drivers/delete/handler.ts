import { deleteDriver } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverRef } from '../../refs';
import { deleteDriver as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  await deleteDriver(driverRef(caller, params));
  return {};
});
