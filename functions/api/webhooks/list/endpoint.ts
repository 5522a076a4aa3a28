import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { Webhook, webhooksEndpoint } from '../schemas';

export const listWebhooks = /* @__PURE__ */ webhooksEndpoint('GET /webhooks', {
  operationId: 'listWebhooks',
  module: import.meta.url,
  summary: 'The account’s webhooks',
  request: {},
  responses:
    import.meta.responseSchemas !== false &&
    ok('the webhooks', z.object({ webhooks: /* @__PURE__ */ z.array(Webhook) })),
  errorCodes: [],
});
