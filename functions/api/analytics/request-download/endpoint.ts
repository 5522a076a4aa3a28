import * as channels from '../../../models/channels';
import { Id, Label } from '../../../models/common';
import * as z from '../../../shared/zod';
import { analyticsEndpoint } from '../schemas';

export const requestAnalyticsDownload = analyticsEndpoint('POST /analytics/download-requests', {
  operationId: 'requestAnalyticsDownload',
  module: import.meta.url,
  summary: 'Request CSV files of route and/or attempt analytics for DCs and DC-local dates',
  access: { table: 'readWrite', sendTo: [channels.analytics] },
  // Each request can read millions of rows; the export worker runs two at a time.
  throttling: { rateLimit: 2, burstLimit: 10 },
  request: {
    body: z.withMeta(
      z.object({
        dc_ids: z.array(Id).check(z.maxLength(100)),
        from_date: z.withMeta(Label(64), { description: 'YYYY-MM-DD, in each DC’s local time' }),
        to_date: z.withMeta(Label(64), {
          description: 'YYYY-MM-DD, inclusive; at most 92 days after from_date',
        }),
        analytics_types: z.withMeta(z.array(Label(64)).check(z.maxLength(10)), {
          description: 'ROUTE_ANALYTICS and/or ATTEMPT_ANALYTICS',
        }),
      }),
      { id: 'AnalyticsDownloadRequest' },
    ),
  },
  responses: {
    200: {
      description: 'accepted; poll the files with the txid',
      data: z.object({ download_request_txid: z.string() }),
    },
  },
  errorCodes: [6001, 6002, 6003, 6004, 6005, 1002],
});
