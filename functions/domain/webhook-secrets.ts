import {
  type EncryptionContext,
  isSealedSecret,
  openSecret,
  type SealedSecret,
  sealSecrets,
  UnreadableSecretError,
} from '../data/secret-envelope';
import type { StoredSecret, Webhook } from '../data/webhooks';

export { UnreadableSecretError };

/**
 * A webhook's secrets are sealed for their webhook: KMS decrypts their data key only under this context, so
 * a sealed secret copied into another webhook's item (or account) does not open there.
 */
export const secretContext = (accountId: string, webhookId: string): EncryptionContext => ({
  account_id: accountId,
  webhook_id: webhookId,
});

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
 * expires. Throws UnreadableSecretError when one does not open for this webhook.
 */
export async function signingSecrets(
  webhook: Pick<Webhook, 'accountId' | 'webhookId' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: number,
): Promise<string[]> {
  const { previousSecret, previousSecretExpiresAt } = webhook;
  const context = secretContext(webhook.accountId, webhook.webhookId);
  const previousValid =
    previousSecret !== undefined && previousSecretExpiresAt !== undefined && previousSecretExpiresAt > now;
  return Promise.all(
    (previousValid ? [webhook.secret, previousSecret] : [webhook.secret]).map((secret) =>
      openStored(secret, context),
    ),
  );
}
