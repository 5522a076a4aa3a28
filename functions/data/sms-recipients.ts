import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../shared/crypto';
import { db, queryItems, tableName } from './client';
import { normalizedAddress } from './opt-outs';
import type { TableKey } from './table-schema';

/**
 * Which accounts sent SMS to a phone number: what a STOP reply, which names only the phone and the
 * deployment's origination number, is mapped to (docs/architecture.md, "SMS opt-outs are per account").
 * One item per (phone, account), keyed by the phone's SHA-256 (no number in the clear), written when a message
 * goes out and kept SMS_RECIPIENT_DAYS after the last one.
 */

/** How long after its last message a phone still maps to the account. */
export const SMS_RECIPIENT_DAYS = 400;

const phoneKey = (phone: string) => `SMS_RECIPIENT#${sha256Hex(normalizedAddress('SMS', phone))}`;
const recipientKey = (phone: string, accountId: string): TableKey => ({ pk: phoneKey(phone), sk: accountId });

/** Notes that the account sent an SMS to `phone` at `at`. */
export async function noteSmsRecipient(accountId: string, phone: string, at: number): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...recipientKey(phone, accountId),
        entity: 'SMS_RECIPIENT',
        last_sent_at: at,
        expires_at: Math.floor(at / 1000) + SMS_RECIPIENT_DAYS * 86_400,
      },
    }),
  );
}

/** The accounts that sent an SMS to `phone` within SMS_RECIPIENT_DAYS. */
export async function accountsThatTexted(phone: string): Promise<string[]> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': phoneKey(phone) },
    ProjectionExpression: 'sk',
    ConsistentRead: true,
  });
  return items.map((item) => String(item.sk));
}
