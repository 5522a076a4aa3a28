import { rotateSecret } from '../../../domain/webhooks';
import { httpHandler } from '../../http-handler';
import { rotateWebhookSecret as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const rotated = await rotateSecret(caller.accountId, params.id, body.expire_previous_after_seconds);
  return {
    webhook_id: rotated.webhook.webhookId,
    secret: rotated.secret,
    previous_secret_expires_at: rotated.previousSecretExpiresAt,
  };
});
