import * as z from '../../../shared/zod';
import { alsoAs } from '../../define';
import { ONLY_ENABLED, WebhookData, WebhookParams, webhookChangeEndpoint } from '../schemas';

export const updateWebhook = webhookChangeEndpoint('PATCH /webhooks/{id}', {
  operationId: 'updateWebhook',
  module: import.meta.url,
  summary: 'Enable or disable a webhook (nothing else can change)',
  request: {
    params: WebhookParams,
    body: z.withMeta(
      z.strictObject(
        { enabled: z.boolean() },
        { error: (issue) => (issue.code === 'unrecognized_keys' ? ONLY_ENABLED : undefined) },
      ),
      { id: 'UpdateWebhookRequest' },
    ),
  },
  responses: { 200: { description: 'the webhook after the change', data: WebhookData } },
});

/** The same endpoint under PUT (one Lambda). */
export const updateWebhookPut = alsoAs(updateWebhook, 'PUT');
