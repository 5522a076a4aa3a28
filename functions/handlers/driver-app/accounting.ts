import { addAccountingRecord } from '../../domain/cash-accounting';
import { addDriverAccountingRecord as endpoint } from '../../endpoints/driver-app';
import { httpHandler } from '../../shared/http-handler';
import { accountingRecordView } from '../routes/views';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const record = await addAccountingRecord(caller, params.route_id, {
    id: body.id,
    cashReceivedCents: body.cash_received_cents,
    cashContainerId: body.cash_container_id,
  });
  return { record: accountingRecordView(record) };
});
