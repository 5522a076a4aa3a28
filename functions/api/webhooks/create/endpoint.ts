import { Id, Label, SafeText } from '../../../models/common';
import { SUBSCRIBABLE_EVENTS } from '../../../models/event-catalog';
import * as z from '../../../shared/zod';
import { CreatedWebhook, webhookChangeEndpoint } from '../schemas';

export const createWebhook = webhookChangeEndpoint('POST /webhooks', {
  operationId: 'createWebhook',
  module: import.meta.url,
  summary: 'Register a URL for events of some DCs; the answer carries the signing secret, once',
  access: { table: 'readWrite', webhookSecrets: 'encrypt' },
  request: {
    body: z.withMeta(
      z.object({
        webhook_url: z.withMeta(SafeText({ max: 2048 }), {
          description: 'a fully formed http or https URL, without credentials',
        }),
        events: z.withMeta(
          z
            .array(
              // Documented as the catalog's enum; checked by the use case, which answers 4002 for another.
              z.withMeta(Label(64), { enum: [...SUBSCRIBABLE_EVENTS] }),
            )
            .check(z.minLength(1), z.maxLength(20)),
          {
            description:
              'event types (the event catalog: see the `webhooks` section for each body); another type is refused with 4002',
          },
        ),
        dc_ids: z.array(Id).check(z.minLength(1), z.maxLength(1000)),
      }),
      { id: 'CreateWebhookRequest' },
    ),
  },
  responses: { 200: { description: 'the created webhook', data: z.object({ webhook: CreatedWebhook }) } },
  // 4004: the account's webhook limit (20 by default); 4005: the URL already gets one of these event types.
  errorCodes: [4001, 4002, 4003, 4004, 4005],
});
