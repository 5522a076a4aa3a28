import { EpochMillis, SafeText } from '../../../models/common';
import { ANALYTICS_FILES_PREFIX } from '../../../shared/resources';
import * as z from '../../../shared/zod';

import { analyticsEndpoint } from '../schemas';

export const getAnalyticsDownloadFiles = /* @__PURE__ */ analyticsEndpoint(
  'GET /analytics/download-requests/{download_request_txid}/files',
  {
    operationId: 'getAnalyticsDownloadFiles',
    module: import.meta.url,
    summary:
      'The files of a download request: 202 while they are generated, then links valid 30 to 60 minutes',
    // Only presigns GETs of the export's files; it reads no object itself.
    access: { table: 'read', signLinks: { access: 'read', keyPrefix: ANALYTICS_FILES_PREFIX } },
    // Any text of up to 256 characters: a txid this service never issued is 6000 (the spec's only code here),
    // not a format error; longer ones, or ones with characters no text may have, are 1006 like any parameter.
    request: {
      params: /* @__PURE__ */ z.object({
        download_request_txid: /* @__PURE__ */ SafeText({ min: 1, max: 256 }),
      }),
    },
    responses: import.meta.responseSchemas !== false && {
      200: {
        description: 'the files',
        data: /* @__PURE__ */ z.object({
          download_request_files: /* @__PURE__ */ z.array(
            /* @__PURE__ */ z.withMeta(
              /* @__PURE__ */ z.object({
                file_type: /* @__PURE__ */ z.literal('CSV'),
                download_link: /* @__PURE__ */ z.string(),
                expiration_timestamp: EpochMillis,
                download_type: /* @__PURE__ */ z.enum(['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS']),
              }),
              { id: 'DownloadFile' },
            ),
          ),
        }),
      },
      202: {
        description: 'still being generated; poll again',
        data: /* @__PURE__ */ z.object({ download_request_txid: /* @__PURE__ */ z.string() }),
      },
    },
    errorCodes: [6000],
  },
);
