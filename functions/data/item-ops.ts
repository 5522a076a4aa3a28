import { GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, type Item, isConditionFailure, tableName } from './client';
import type { Codec } from './codec';
import type { TransactItem } from './routes';
import type { TableKey } from './table-schema';

/** The item under `key` (only the `projection` attributes when given), read consistently; undefined when there is none. */
export async function getItem(key: TableKey, projection?: string): Promise<Item | undefined> {
  const { Item } = await db.send(
    new GetCommand({
      TableName: tableName(),
      Key: key,
      ProjectionExpression: projection,
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** The record under `key` as `fromItem` reads it (read consistently); undefined when there is none. */
export async function getRecord<T>(key: TableKey, fromItem: (item: Item) => T): Promise<T | undefined> {
  const item = await getItem(key);
  return item && fromItem(item);
}

/**
 * Transaction item putting `record` as its entity's item: `key`, the `entity` tag, the attributes of its
 * `codec` and any `also` (an expiry, a lookup key). `ifNew` refuses to overwrite an item (its condition fails
 * when `key` is taken); without it the put replaces whatever is there.
 */
export function putRecordItem<T>(put: {
  key: TableKey;
  entity: string;
  codec: Codec<T>;
  record: T;
  also?: Item;
  ifNew?: boolean;
}): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...put.key, entity: put.entity, ...put.codec.toItem(put.record), ...put.also },
      ...(put.ifNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
    },
  };
}

/**
 * Waits for a conditional write: true when it was written, false when its condition failed (the write did
 * nothing). Any other error is thrown.
 */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Runs a conditional update: the item as it is after it, or undefined when the condition failed. */
export async function updateIfHeld(
  input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>,
): Promise<Item | undefined> {
  try {
    const { Attributes } = await db.send(
      new UpdateCommand({ ...input, TableName: tableName(), ReturnValues: 'ALL_NEW' }),
    );
    return Attributes;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
