import { Id, Label } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { AccountingRecord } from '../../routes/accounting-schemas';
import { driverAppEndpoint, RouteParams } from '../schemas';

export const addDriverAccountingRecord = /* @__PURE__ */ driverAppEndpoint(
  'POST /driver/routes/{route_id}/accounting',
  {
    operationId: 'addDriverAccountingRecord',
    module: import.meta.url,
    summary: 'Record cash received on one of the driver’s routes',
    request: {
      params: RouteParams,
      body: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.object({
          id: /* @__PURE__ */ z.withMeta(Id, { description: 'unique in the account' }),
          cash_received_cents: /* @__PURE__ */ z
            .int()
            .check(/* @__PURE__ */ z.minimum(0), /* @__PURE__ */ z.maximum(Number.MAX_SAFE_INTEGER)),
          cash_container_id: /* @__PURE__ */ Label(128, {
            min: 1,
            notBlank: true,
            description: 'a label of the container the cash went into (`bag A`)',
          }),
        }),
        { id: 'AccountingRecordRequest' },
      ),
    },
    responses:
      import.meta.responseSchemas !== false && ok('the record', z.object({ record: AccountingRecord })),
    errorCodes: [3003, 3011, 3012, 3014, 3102],
  },
);
