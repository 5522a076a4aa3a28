import { addAccountingRecord } from '../../../domain/cash-accounting';
import { httpHandler } from '../../http-handler';
import { accountingRecordView } from '../../routes/views';
import { addDriverAccountingRecord as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const record = await addAccountingRecord(caller, params.route_id, {
    id: body.id,
    cashReceivedCents: body.cash_received_cents,
    cashContainerId: body.cash_container_id,
  });
  return { record: accountingRecordView(record) };
});
