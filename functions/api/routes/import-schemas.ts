/** What the endpoints that take a whole route body share: import and revision both end in the import worker. */

import * as channels from '../../models/channels';
import { IMPORT_PAYLOADS_PREFIX } from '../../shared/resources';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';
import { TAG } from './schemas';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

/**
 * Rows that accept a route body and hand it to the import worker: the body is kept in the bucket, the job
 * queued with its deadline, and the answer is a txid to poll.
 */
export const routeBodyEndpoint = /* @__PURE__ */ endpointGroup({
  tag: TAG,
  access: {
    table: 'readWrite',
    bucket: 'write',
    bucketKeyPrefixes: [IMPORT_PAYLOADS_PREFIX],
    sendTo: [channels.imports, channels.importDeadlines],
  },
  // One body writes up to a whole route (~100,000 items); the import worker takes five at a time.
  throttling: { rateLimit: 10, burstLimit: 20 },
  responses: import.meta.responseSchemas !== false && {
    202: {
      description: 'accepted; poll the import status with the txid',
      data: /* @__PURE__ */ z.object({ txid: /* @__PURE__ */ z.string() }),
    },
  },
});
