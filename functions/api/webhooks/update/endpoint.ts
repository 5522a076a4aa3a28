import * as z from 'zod';
import { alsoAs, defineEndpoint } from '../../define';
import { ONLY_ENABLED, TAG, WebhookData, WebhookParams } from '../schemas';

export const updateWebhook = defineEndpoint({
  operationId: 'updateWebhook',
  method: 'PATCH',
  path: '/webhooks/{id}',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Enable or disable a webhook (nothing else can change)',
  tag: TAG,
  access: { table: 'readWrite' },
  request: {
    params: WebhookParams,
    body: z
      .strictObject(
        { enabled: z.boolean() },
        { error: (issue) => (issue.code === 'unrecognized_keys' ? ONLY_ENABLED : undefined) },
      )
      .meta({ id: 'UpdateWebhookRequest' }),
  },
  responses: { 200: { description: 'the webhook after the change', data: WebhookData } },
  errorCodes: [1003],
});

/** The same endpoint under PUT (one Lambda). */
export const updateWebhookPut = alsoAs(updateWebhook, 'PUT');
