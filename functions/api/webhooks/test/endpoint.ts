import * as channels from '../../../models/channels';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { OUTBOUND_THROTTLING, webhooksEndpoint } from '../schemas';

export const testWebhook = /* @__PURE__ */ webhooksEndpoint('POST /webhooks/{id}/test', {
  operationId: 'testWebhook',
  module: import.meta.url,
  summary: 'Send a PING event to the webhook (delivered, signed and retried like any event)',
  // Writes nothing of its own to the table, but keeps its Idempotency-Keys there, as every write does.
  access: { table: 'readWrite', sendTo: [channels.deliveries] },
  throttling: OUTBOUND_THROTTLING,
  responses:
    import.meta.responseSchemas !== false && ok('queued', z.object({ event_id: /* @__PURE__ */ z.string() })),
});
