import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../shared/crypto';
import { accountKeys } from './accounts';
import { db, isConditionFailure, queryPrefixItems, tableName } from './client';
import { codec } from './codec';
import { putRecordItem } from './item-ops';
import type { TransactItem } from './routes';
import type { TableKey } from './table-schema';

/**
 * An account's webhook limits, held race-free by items of the account's partition written in the same
 * transaction as the webhook itself:
 * - a counter (`WEBHOOKS`): a create adds 1 on condition that the count is below the limit, a delete takes 1;
 * - one target claim per (event type, normalized URL) (`WEBHOOK_TARGET#<event>#<sha256 of the URL>`), taken by
 *   a create on condition that nobody holds it, released by the delete of the webhook that holds it: the same
 *   URL cannot receive the same event type twice from one account.
 * Neither sort key starts with `WEBHOOK#`, so reads of an account's webhooks never see them.
 */
const COUNTER_SK = 'WEBHOOKS';
const TARGET_PREFIX = 'WEBHOOK_TARGET#';

const counterKey = (accountId: string): TableKey => ({
  pk: accountKeys.partition(accountId),
  sk: COUNTER_SK,
});

/** One (event type, URL) target of a webhook. */
export interface WebhookTarget {
  event: string;
  /** The URL as compared: normalized (functions/domain/webhooks.ts). */
  url: string;
}

const targetKey = (accountId: string, target: WebhookTarget): TableKey => ({
  pk: accountKeys.partition(accountId),
  sk: `${TARGET_PREFIX}${target.event}#${sha256Hex(target.url)}`,
});

/** The counter; `webhook_count` is also named by the writes' update expressions. */
const counterCodec = codec<{ accountId: string; webhookCount: number }>({ accountId: {}, webhookCount: {} });

/** A target's claim: the target and the webhook that holds it. */
const targetCodec = codec<WebhookTarget & { accountId: string; webhookId: string }>({
  accountId: {},
  webhookId: {},
  event: {},
  url: {},
});

/** The account has `limit` webhooks already. */
export class WebhookLimitReached extends Error {
  constructor(readonly limit: number) {
    super(`the account has ${limit} webhooks, its limit`);
  }
}

/** Another webhook of the account holds the target. */
export class WebhookTargetTaken extends Error {
  constructor(readonly target: WebhookTarget) {
    super(`another webhook sends ${target.event} to ${target.url}`);
  }
}

/**
 * Counts the account's webhooks once, for accounts whose webhooks predate the counter: every write of a
 * webhook needs the counter (its condition says so), so none can change the count while this reads it.
 */
async function ensureCounter(accountId: string): Promise<void> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName(), Key: counterKey(accountId), ConsistentRead: true }),
  );
  if (Item) return;
  // Read whole, once per account: a COUNT query takes the same read units (an account holds 1,000 at most).
  const count = (await queryPrefixItems(accountKeys.partition(accountId), 'WEBHOOK#')).items.length;
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...counterKey(accountId),
          entity: 'WEBHOOK_COUNTER',
          ...counterCodec.toItem({ accountId, webhookCount: count }),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error; // another request counted first
  }
}

/**
 * Writes a new webhook (its Put, conditional on its absence) with its count and target claims, in one
 * transaction. Throws WebhookTargetTaken or WebhookLimitReached when the account refuses it.
 */
export async function putWithinLimits(
  accountId: string,
  webhookId: string,
  webhookPut: TransactItem,
  targets: readonly WebhookTarget[],
  limit: number,
): Promise<void> {
  await ensureCounter(accountId);
  const transactItems = [
    {
      Update: {
        TableName: tableName(),
        Key: counterKey(accountId),
        UpdateExpression: 'SET webhook_count = webhook_count + :one',
        ConditionExpression: 'attribute_exists(pk) AND webhook_count < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit },
      },
    },
    webhookPut,
    ...targets.map((target) =>
      putRecordItem({
        key: targetKey(accountId, target),
        entity: 'WEBHOOK_TARGET',
        codec: targetCodec,
        record: { accountId, webhookId, ...target },
        ifNew: true,
      }),
    ),
  ];
  try {
    await transactWithRetries(transactItems);
  } catch (error) {
    const reasons = cancellationReasons(error);
    const taken = targets.find((_, index) => reasons?.[index + 2] === 'ConditionalCheckFailed');
    if (taken) throw new WebhookTargetTaken(taken);
    if (reasons?.[0] === 'ConditionalCheckFailed') throw new WebhookLimitReached(limit);
    throw error;
  }
}

/**
 * Deletes a webhook (its Delete, conditional on its presence) with its count and the target claims it holds,
 * in one transaction. Returns false when the webhook's condition fails (deleted meanwhile).
 */
export async function deleteWithinLimits(
  accountId: string,
  webhookId: string,
  webhookDelete: { Delete: Record<string, unknown> },
  targets: readonly WebhookTarget[],
): Promise<boolean> {
  await ensureCounter(accountId);
  // Only claims this webhook holds: a webhook older than claims holds none, and another may hold its target.
  const held: WebhookTarget[] = [];
  for (const target of targets) {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName(), Key: targetKey(accountId, target), ConsistentRead: true }),
    );
    if (Item && targetCodec.fromItem(Item).webhookId === webhookId) held.push(target);
  }
  try {
    await transactWithRetries([
      webhookDelete,
      {
        Update: {
          TableName: tableName(),
          Key: counterKey(accountId),
          UpdateExpression: 'SET webhook_count = webhook_count - :one',
          ConditionExpression: 'webhook_count > :zero',
          ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
        },
      },
      ...held.map((target) => ({
        Delete: {
          TableName: tableName(),
          Key: targetKey(accountId, target),
          ConditionExpression: 'webhook_id = :id',
          ExpressionAttributeValues: { ':id': webhookId },
        },
      })),
    ]);
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/** The code of each item of a cancelled transaction, undefined for any other error. */
function cancellationReasons(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  return ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map(
    (reason) => reason.Code,
  );
}

/**
 * Concurrent writes of one account's webhooks meet on its counter item, and DynamoDB cancels a transaction
 * that meets another one in progress (TransactionConflict): such a transaction is tried again, after a
 * jittered pause, up to 8 times.
 */
async function transactWithRetries(transactItems: Record<string, unknown>[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.send(new TransactWriteCommand({ TransactItems: transactItems as never }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const conflicted =
        (reasons?.includes('TransactionConflict') && !reasons.includes('ConditionalCheckFailed')) ||
        (error instanceof Error && error.name === 'TransactionConflictException');
      if (!conflicted || attempt >= 8) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 20 * 2 ** attempt)));
    }
  }
}
