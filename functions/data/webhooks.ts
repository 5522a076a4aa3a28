import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountKeys } from './accounts';
import { db, queryPrefixItems, tableName } from './client';
import { codec } from './codec';
import type { EventType } from './events';
import { conditionHeld, getRecord, putRecordItem, updateIfHeld } from './item-ops';
import type { SealedSecret } from './secret-envelope';
import type { TableKey } from './table-schema';
import { deleteWithinLimits, putWithinLimits, type WebhookTarget } from './webhook-limits';

export { WebhookLimitReached, type WebhookTarget, WebhookTargetTaken } from './webhook-limits';

/**
 * A signing secret as the item holds it: sealed under the KMS key (functions/data/secret-envelope.ts), or, for
 * a webhook whose secret was written before secrets were encrypted, the plain string; rotation seals it.
 */
export type StoredSecret = SealedSecret | string;

export interface Webhook {
  accountId: string;
  webhookId: string;
  url: string;
  enabled: boolean;
  dcIds: string[];
  events: EventType[];
  /** HMAC key of the signatures, as stored; returned to the caller once, at creation or rotation. */
  secret: StoredSecret;
  /** The secret before the last rotation: deliveries are signed with it too until it expires. */
  previousSecret?: StoredSecret;
  previousSecretExpiresAt?: number;
  /**
   * Start of the latest run of failed deliveries. The run goes on until a success after it is recorded
   * (`succeededAt`); see failureRunStart in domain/webhook-events.ts.
   */
  failingSince?: number;
  /** A success recorded to end a failure run (not every success: see recordWebhookSuccess). */
  succeededAt?: number;
  /** Why the service disabled the webhook (continuous failure), when it did. */
  disabledReason?: string;
  createdAt: number;
}

/** A webhook lives in its account's partition: the fan-out reads an account's webhooks with one query. */
const PREFIX = 'WEBHOOK#';

export const webhookKey = (accountId: string, webhookId: string): TableKey => ({
  pk: accountKeys.partition(accountId),
  sk: `${PREFIX}${webhookId}`,
});

const webhookCodec = codec<Webhook>({
  accountId: {},
  webhookId: {},
  url: {},
  enabled: {},
  dcIds: { absent: [] },
  events: { absent: [] },
  secret: {},
  previousSecret: {},
  previousSecretExpiresAt: {},
  failingSince: {},
  succeededAt: {},
  disabledReason: {},
  createdAt: {},
});

const fromItem = webhookCodec.fromItem;

/**
 * Writes a new webhook unless the account has `limits.max` webhooks (WebhookLimitReached) or another of its
 * webhooks has one of `limits.targets` (WebhookTargetTaken).
 */
export async function putNewWebhook(
  webhook: Webhook,
  limits: { max: number; targets: readonly WebhookTarget[] },
): Promise<void> {
  await putWithinLimits(
    webhook.accountId,
    webhook.webhookId,
    putRecordItem({
      key: webhookKey(webhook.accountId, webhook.webhookId),
      entity: 'WEBHOOK',
      codec: webhookCodec,
      record: webhook,
      ifNew: true,
    }),
    limits.targets,
    limits.max,
  );
}

export const getWebhook = (accountId: string, webhookId: string) =>
  getRecord(webhookKey(accountId, webhookId), fromItem);

/** The account's webhooks, oldest first. */
export async function listWebhooks(accountId: string): Promise<Webhook[]> {
  const { items } = await queryPrefixItems(accountKeys.partition(accountId), PREFIX);
  return items
    .map(fromItem)
    .sort((a, b) => a.createdAt - b.createdAt || a.webhookId.localeCompare(b.webhookId));
}

/**
 * Enables or disables a webhook; returns it, or undefined when it does not exist. Enabling starts a fresh
 * failure count; disabling by the service records why.
 */
export async function setWebhookEnabled(
  accountId: string,
  webhookId: string,
  enabled: boolean,
  disabledReason?: string,
): Promise<Webhook | undefined> {
  const updated = await updateIfHeld({
    Key: webhookKey(accountId, webhookId),
    UpdateExpression: enabled
      ? 'SET enabled = :enabled REMOVE failing_since, disabled_reason'
      : disabledReason
        ? 'SET enabled = :enabled, disabled_reason = :reason'
        : 'SET enabled = :enabled',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: {
      ':enabled': enabled,
      ...(!enabled && disabledReason ? { ':reason': disabledReason } : {}),
    },
  });
  return updated ? fromItem(updated) : undefined;
}

/** Deletes a webhook, freeing its place and its targets (`targetsOf` the webhook); false when it is gone. */
export async function deleteWebhook(
  accountId: string,
  webhookId: string,
  targetsOf: (webhook: Webhook) => WebhookTarget[],
): Promise<boolean> {
  const webhook = await getWebhook(accountId, webhookId);
  if (!webhook) return false;
  return deleteWithinLimits(
    accountId,
    webhookId,
    {
      Delete: {
        TableName: tableName(),
        Key: webhookKey(accountId, webhookId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    targetsOf(webhook),
  );
}

/**
 * Starts a failure run at `at`, unless one is going on (its start after the last recorded success): then, or
 * when the webhook is gone, nothing changes. Written only when a failure finds no run going on.
 */
export async function startWebhookFailureRun(
  accountId: string,
  webhookId: string,
  at: number,
): Promise<void> {
  await conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookKey(accountId, webhookId),
        UpdateExpression: 'SET failing_since = :at',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(failing_since) OR failing_since <= succeeded_at)',
        ExpressionAttributeValues: { ':at': at },
      }),
    ),
  );
}

/**
 * Records a success at `at`, which ends the failure run that started before it. Only called when the
 * webhook's item showed a run going on; never moves the recorded success back in time.
 */
export async function recordWebhookSuccess(accountId: string, webhookId: string, at: number): Promise<void> {
  await conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: webhookKey(accountId, webhookId),
        UpdateExpression: 'SET succeeded_at = :at',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(succeeded_at) OR succeeded_at < :at)',
        ExpressionAttributeValues: { ':at': at },
      }),
    ),
  );
}

/**
 * Replaces the secret; the one it replaces stays valid until `previousExpiresAt` (not at all when undefined).
 * One update, so concurrent rotations each keep the secret they replaced, never a mix. Keeping a sealed
 * secret copies it; a plain one (stored before encryption) is kept as `plainCurrent.sealed`, and only while
 * the item still holds `plainCurrent.was`. Undefined when the webhook does not exist or its secret is not
 * (or no longer) of the form the call expects: read it again and retry.
 */
export async function rotateWebhookSecret(
  accountId: string,
  webhookId: string,
  secret: SealedSecret,
  previousExpiresAt: number | undefined,
  plainCurrent?: { was: string; sealed: SealedSecret },
): Promise<Webhook | undefined> {
  const keep = previousExpiresAt !== undefined;
  const updated = await updateIfHeld({
    Key: webhookKey(accountId, webhookId),
    UpdateExpression: !keep
      ? 'SET #secret = :secret REMOVE previous_secret, previous_secret_expires_at'
      : plainCurrent
        ? 'SET previous_secret = :previous, previous_secret_expires_at = :expires, #secret = :secret'
        : 'SET previous_secret = #secret, previous_secret_expires_at = :expires, #secret = :secret',
    ConditionExpression: !keep
      ? 'attribute_exists(pk)'
      : plainCurrent
        ? '#secret = :was'
        : 'attribute_type(#secret, :map)',
    ExpressionAttributeNames: { '#secret': 'secret' },
    ExpressionAttributeValues: {
      ':secret': secret,
      ...(!keep
        ? {}
        : plainCurrent
          ? { ':expires': previousExpiresAt, ':previous': plainCurrent.sealed, ':was': plainCurrent.was }
          : { ':expires': previousExpiresAt, ':map': 'M' }),
    },
  });
  return updated ? fromItem(updated) : undefined;
}
