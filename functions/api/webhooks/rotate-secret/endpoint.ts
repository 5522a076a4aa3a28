import { EpochMillis } from '../../../models/common';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import {
  DEFAULT_PREVIOUS_SECRET_SECONDS,
  MAX_PREVIOUS_SECRET_SECONDS,
  SECRET_DESCRIPTION,
  WebhookParams,
  webhookChangeEndpoint,
} from '../schemas';

export const rotateWebhookSecret = /* @__PURE__ */ webhookChangeEndpoint(
  'POST /webhooks/{id}/rotate-secret',
  {
    operationId: 'rotateWebhookSecret',
    module: import.meta.url,
    summary: 'Replace the signing secret; the previous one goes on signing deliveries for a grace period',
    description:
      'Until `previous_secret_expires_at` every delivery carries a signature for each secret (space-separated in `webhook-signature`), so receivers can switch to the new secret at any time of it; then only the new one signs. Rotating again replaces the previous secret with the current one.',
    access: { table: 'readWrite', webhookSecrets: 'encrypt' },
    request: {
      params: WebhookParams,
      body: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.prefault(
          /* @__PURE__ */ z.strictObject({
            expire_previous_after_seconds: /* @__PURE__ */ z.withMeta(
              /* @__PURE__ */ z._default(
                /* @__PURE__ */ z
                  .number()
                  .check(
                    /* @__PURE__ */ z.int(),
                    /* @__PURE__ */ z.minimum(0),
                    /* @__PURE__ */ z.maximum(MAX_PREVIOUS_SECRET_SECONDS),
                  ),
                DEFAULT_PREVIOUS_SECRET_SECONDS,
              ),
              {
                description: `how long the previous secret still signs, 0..${MAX_PREVIOUS_SECRET_SECONDS} seconds (0: not at all); ${DEFAULT_PREVIOUS_SECRET_SECONDS} when absent`,
              },
            ),
          }),
          {},
        ),
        { id: 'RotateWebhookSecretRequest' },
      ),
    },
    responses:
      import.meta.responseSchemas !== false &&
      ok(
        'the new secret',
        z.object({
          webhook_id: /* @__PURE__ */ z.string(),
          secret: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
            description: /* @__PURE__ */ SECRET_DESCRIPTION.replace('here, once', 'here'),
          }),
          previous_secret_expires_at: /* @__PURE__ */ z.withMeta(EpochMillis, {
            description: 'when the previous secret stops signing (now, for 0 seconds)',
          }),
        }),
      ),
  },
);
