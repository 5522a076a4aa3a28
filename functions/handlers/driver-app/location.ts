import { reportLocation } from '../../domain/locations';
import { reportDriverLocation as endpoint } from '../../endpoints/driver-app';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ body, caller }) => {
  await reportLocation(caller, { timestamp: body.timestamp, ...body.location });
  return {};
});
