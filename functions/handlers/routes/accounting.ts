import { accountingRecords } from '../../domain/route-reports';
import { getRouteAccounting as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const records = await accountingRecords(caller.accountId, params.dc_id, params.route_id);
  return {
    records: records.map((record) => ({
      id: record.id,
      driver_id: record.driverId,
      cash_received_cents: record.cashReceivedCents,
      cash_container_id: record.cashContainerId,
    })),
  };
});
