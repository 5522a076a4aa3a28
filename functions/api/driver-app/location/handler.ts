import { reportLocation } from '../../../domain/locations';
import { httpHandler } from '../../http-handler';
import { reportDriverLocation as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ body, caller }) => {
  await reportLocation(caller, { timestamp: body.timestamp, ...body.location });
  return {};
});
