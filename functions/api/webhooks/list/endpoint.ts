import * as z from '../../../shared/zod';
import { NOT_BUNDLED } from '../../define';
import { Webhook, webhooksEndpoint } from '../schemas';

export const listWebhooks = /* @__PURE__ */ webhooksEndpoint('GET /webhooks', {
  operationId: 'listWebhooks',
  module: import.meta.url,
  summary: 'The account’s webhooks',
  request: {},
  responses:
    import.meta.responseSchemas === false
      ? NOT_BUNDLED
      : {
          200: {
            description: 'the webhooks',
            data: /* @__PURE__ */ z.object({ webhooks: /* @__PURE__ */ z.array(Webhook) }),
          },
        },
  errorCodes: [],
});
