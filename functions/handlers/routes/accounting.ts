import { accountingRecords } from '../../domain/route-reports';
import { getRouteAccounting as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { accountingRecordView } from './views';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const records = await accountingRecords({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  });
  return { records: records.map(accountingRecordView) };
});
