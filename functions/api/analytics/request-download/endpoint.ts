import * as channels from '../../../models/channels';
import { Id, Label } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { analyticsEndpoint } from '../schemas';

export const requestAnalyticsDownload = /* @__PURE__ */ analyticsEndpoint(
  'POST /analytics/download-requests',
  {
    operationId: 'requestAnalyticsDownload',
    module: import.meta.url,
    summary: 'Request CSV files of route and/or attempt analytics for DCs and DC-local dates',
    access: { table: 'readWrite', sendTo: [channels.analytics] },
    // Each request can read millions of rows; the export worker runs two at a time.
    throttling: { rateLimit: 2, burstLimit: 10 },
    request: {
      body: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.object({
          dc_ids: /* @__PURE__ */ z.array(Id).check(/* @__PURE__ */ z.maxLength(100)),
          from_date: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ Label(64), {
            description: 'YYYY-MM-DD, in each DC’s local time',
          }),
          to_date: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ Label(64), {
            description: 'YYYY-MM-DD, inclusive; at most 92 days after from_date',
          }),
          analytics_types: /* @__PURE__ */ z.withMeta(
            /* @__PURE__ */ z.array(/* @__PURE__ */ Label(64)).check(/* @__PURE__ */ z.maxLength(10)),
            {
              description: 'ROUTE_ANALYTICS and/or ATTEMPT_ANALYTICS',
            },
          ),
        }),
        { id: 'AnalyticsDownloadRequest' },
      ),
    },
    responses:
      import.meta.responseSchemas !== false &&
      ok(
        'accepted; poll the files with the txid',
        z.object({ download_request_txid: /* @__PURE__ */ z.string() }),
      ),
    errorCodes: [6001, 6002, 6003, 6004, 6005, 1002],
  },
);
