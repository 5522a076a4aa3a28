import { accountingRecords } from '../../../domain/route-reports';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { accountingRecordView } from '../views';
import { getRouteAccounting as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await accountingRecords(routeRef(caller, params), {
    limit: query.limit,
    nextToken: query.next_token,
  });
  return { records: page.items.map(accountingRecordView), next_token: page.nextToken };
});
