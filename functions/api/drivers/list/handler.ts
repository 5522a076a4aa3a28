import { listDrivers } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverView } from '../views';
import { listDrivers as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await listDrivers(caller.accountId, params.dc_id, {
    limit: query.limit,
    nextToken: query.next_token,
  });
  return { drivers: page.items.map(driverView), next_token: page.nextToken };
});
