import * as channels from '../../../models/channels';
import { DcParams, EpochMillis } from '../../../models/common';
import { IMPORT_UPLOADS_PREFIX } from '../../../shared/resources';
import * as z from '../../../shared/zod';

import { routesEndpoint } from '../schemas';

export const createImportUpload = /* @__PURE__ */ routesEndpoint(
  'POST /dcs/{dc_id}/invoiced-routes/uploads',
  {
    operationId: 'createImportUpload',
    module: import.meta.url,
    summary:
      'Import a route too large for a request body (up to 100 MB): PUT the same {route} JSON to upload_url, then poll the import status with the txid',
    // Only presigns PUTs of upload keys; the object's arrival queues the import (S3 event notification).
    access: {
      table: 'readWrite',
      signLinks: { access: 'write', keyPrefix: IMPORT_UPLOADS_PREFIX },
      sendTo: [channels.importDeadlines],
    },
    throttling: { rateLimit: 10, burstLimit: 20 },
    request: { params: DcParams },
    responses: import.meta.responseSchemas !== false && {
      202: {
        description:
          'PUT the body to upload_url before upload_expiration_timestamp; poll the import status with the txid',
        data: /* @__PURE__ */ z.object({
          txid: /* @__PURE__ */ z.string(),
          upload_url: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
            description: 'presigned S3 PUT link; anyone holding it can upload',
          }),
          upload_expiration_timestamp: /* @__PURE__ */ z.withMeta(EpochMillis, {
            description: 'when upload_url stops working',
          }),
        }),
      },
    },
    errorCodes: [],
  },
);
