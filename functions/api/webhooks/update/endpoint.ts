import * as z from '../../../shared/zod';
import { alsoAs, ok } from '../../define';
import { ONLY_ENABLED, WebhookData, WebhookParams, webhookChangeEndpoint } from '../schemas';

export const updateWebhook = /* @__PURE__ */ webhookChangeEndpoint('PATCH /webhooks/{id}', {
  operationId: 'updateWebhook',
  module: import.meta.url,
  summary: 'Enable or disable a webhook (nothing else can change)',
  request: {
    params: WebhookParams,
    body: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.strictObject(
        { enabled: /* @__PURE__ */ z.boolean() },
        { error: (issue) => (issue.code === 'unrecognized_keys' ? ONLY_ENABLED : undefined) },
      ),
      { id: 'UpdateWebhookRequest' },
    ),
  },
  responses: import.meta.responseSchemas !== false && ok('the webhook after the change', WebhookData),
});

/** The same endpoint under PUT (one Lambda). */
export const updateWebhookPut = /* @__PURE__ */ alsoAs(updateWebhook, 'PUT');
