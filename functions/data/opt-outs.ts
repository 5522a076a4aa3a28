import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../shared/crypto';
import { db, tableName } from './client';
import { codec } from './codec';
import { conditionHeld, getItem } from './item-ops';
import type { TableKey } from './table-schema';

/**
 * Customers who asked to hear no more (docs/api.md, Customer notifications): one item per account, channel
 * and address, in the account's own partition, so an opt-out holds for every DC of the account. The address
 * is kept only as the SHA-256 of its normalized form (an email lower-cased and trimmed, a phone as E.164):
 * the worker asks about an address it holds in plain text, and no item shows one. An opt-out is kept until
 * the account is deleted: nothing here lets it lapse.
 */

export type OptOutChannel = 'SMS' | 'EMAIL';

/** The address's normal form: an email trimmed and lower-cased; a phone number in E.164 (`+` and digits). */
export function normalizedAddress(channel: OptOutChannel, address: string): string {
  if (channel === 'EMAIL') return address.trim().toLowerCase();
  const digits = address.replace(/[\s().-]/g, '');
  return digits.startsWith('00') ? `+${digits.slice(2)}` : digits;
}

const optOutKey = (accountId: string, channel: OptOutChannel, address: string): TableKey => ({
  pk: `OPTOUT#${accountId}`,
  sk: `${channel}#${sha256Hex(normalizedAddress(channel, address))}`,
});

interface OptOut {
  channel: OptOutChannel;
  /** What recorded it: `one_click` (an email's unsubscribe link), `stop_reply` (an SMS STOP), ... */
  source: string;
  optedOutAt: number;
}

const optOutCodec = codec<OptOut>({ channel: {}, source: {}, optedOutAt: {} });

/**
 * Records that the address wants no more messages of the channel from the account. Repeating it changes
 * nothing: the first opt-out's source and time stay.
 */
export async function addOptOut(
  accountId: string,
  channel: OptOutChannel,
  address: string,
  source: string,
  at: number,
): Promise<void> {
  await conditionHeld(
    db.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...optOutKey(accountId, channel, address),
          entity: 'OPT_OUT',
          ...optOutCodec.toItem({ channel, source, optedOutAt: at }),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/** True when the address opted out of the channel's messages from the account. */
export async function isOptedOut(
  accountId: string,
  channel: OptOutChannel,
  address: string,
): Promise<boolean> {
  return (await getItem(optOutKey(accountId, channel, address), 'pk')) !== undefined;
}
