import {
  type EncryptionContext,
  isSealedSecret,
  openSecret,
  type SealedSecret,
  sealSecrets,
  UnreadableSecretError,
} from '../data/secret-envelope';
import type { StoredSecret, Webhook } from '../data/webhooks';
import { logger } from '../shared/observability';
import type { WebhookSecretContext } from '../shared/resources';

export { UnreadableSecretError };

/**
 * A webhook's secrets are sealed for their webhook: KMS decrypts their data key only under this context, so
 * a sealed secret copied into another webhook's item (or account) does not open there. Its names are the ones
 * the key's grants allow (WEBHOOK_SECRET_CONTEXT_KEYS).
 */
export const secretContext = (accountId: string, webhookId: string): EncryptionContext =>
  ({ account_id: accountId, webhook_id: webhookId }) satisfies WebhookSecretContext;

/** Seals the webhook's secrets (one KMS GenerateDataKey call for all of them). */
export function sealWebhookSecrets(
  accountId: string,
  webhookId: string,
  secrets: readonly string[],
): Promise<SealedSecret[]> {
  return sealSecrets(secrets, secretContext(accountId, webhookId));
}

/** A stored secret in plain text: opened with KMS, or as it is when it was stored before encryption. */
async function openStored(secret: StoredSecret, context: EncryptionContext): Promise<string> {
  if (typeof secret === 'string') return secret;
  if (!isSealedSecret(secret)) throw new UnreadableSecretError('the stored secret is of no known form');
  return openSecret(secret, context);
}

/**
 * The secrets deliveries are signed with now, in plain text: the current one, and the previous one until it
 * expires. Throws UnreadableSecretError when the current one does not open for this webhook; a previous one
 * that does not open is left out (with a warning), so that a rotation, which replaces an unreadable secret,
 * also ends its failures at once rather than after the grace period.
 */
export async function signingSecrets(
  webhook: Pick<Webhook, 'accountId' | 'webhookId' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: number,
): Promise<string[]> {
  const { previousSecret, previousSecretExpiresAt } = webhook;
  const context = secretContext(webhook.accountId, webhook.webhookId);
  const previousValid =
    previousSecret !== undefined && previousSecretExpiresAt !== undefined && previousSecretExpiresAt > now;
  const [current, previous] = await Promise.all([
    openStored(webhook.secret, context),
    previousValid
      ? openStored(previousSecret, context).catch((error: unknown) => {
          if (!(error instanceof UnreadableSecretError)) throw error;
          // Ids only, never a secret.
          logger.warn('previous webhook signing secret does not decrypt; signing with the current one only', {
            account_id: webhook.accountId,
            webhook_id: webhook.webhookId,
          });
          return undefined;
        })
      : undefined,
  ]);
  return previous === undefined ? [current] : [current, previous];
}
