import { Id, Label } from '../../../models/common';
import * as z from '../../../shared/zod';
import { AccountingRecord } from '../../routes/accounting-schemas';
import { driverAppEndpoint, RouteParams } from '../schemas';

export const addDriverAccountingRecord = driverAppEndpoint('POST /driver/routes/{route_id}/accounting', {
  operationId: 'addDriverAccountingRecord',
  module: import.meta.url,
  summary: 'Record cash received on one of the driver’s routes',
  request: {
    params: RouteParams,
    body: z.withMeta(
      z.object({
        id: z.withMeta(Id, { description: 'unique in the account' }),
        cash_received_cents: z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)),
        cash_container_id: Label(128, {
          min: 1,
          notBlank: true,
          description: 'a label of the container the cash went into (`bag A`)',
        }),
      }),
      { id: 'AccountingRecordRequest' },
    ),
  },
  responses: { 200: { description: 'the record', data: z.object({ record: AccountingRecord }) } },
  errorCodes: [3003, 3011, 3012, 3014, 3102],
});
