import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../shared/crypto';
import { queryItems, tableName } from './client';
import { codec } from './codec';
import { putRecordItem } from './item-ops';
import type { TableKey } from './table-schema';

/** A driver as its login token's claim names it. */
export interface DriverRef {
  accountId: string;
  dcId: string;
  driverId: string;
}

/** A claim (and a lookup written before claims) holds the driver it names. */
const ownerCodec = codec<DriverRef>({ accountId: {}, dcId: {}, driverId: {} });

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const tokenKeys = {
  /**
   * A login token's claim: one item per token hash, written on condition that it does not exist, so a
   * token belongs to one driver across the service. Driver-app authentication looks drivers up by it.
   */
  claim: (tokenHash: string): TableKey => ({ pk: `DRIVER_TOKEN#${tokenHash}`, sk: 'CLAIM' }),
  /**
   * The token lookup drivers created before claims have (keyed by the driver too, so it never conflicted).
   * Read like a claim (same partition) and deleted with the driver or its token; never written any more.
   */
  legacyLookup: (tokenHash: string, driver: DriverRef): TableKey => ({
    pk: `DRIVER_TOKEN#${tokenHash}`,
    sk: `${driver.accountId}/${driver.dcId}/${driver.driverId}`,
  }),
};

/**
 * The drivers whose login token has this hash: its claim's, or a driver's created before claims (two only
 * when two such drivers chose the same token, which claims now prevent).
 */
export async function findTokenOwners(tokenHash: string): Promise<DriverRef[]> {
  const { items } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': tokenKeys.claim(tokenHash).pk },
      ConsistentRead: true,
    },
    2,
  );
  return items.map(ownerCodec.fromItem);
}

/** True when some driver holds the token: its claim, or a lookup item written before claims. */
export async function tokenInUse(tokenHash: string): Promise<boolean> {
  return (await findTokenOwners(tokenHash)).length > 0;
}

/** Transaction item claiming the token for the driver; its condition fails when another driver holds it. */
export function claimTokenItem(driver: DriverRef, token: string): TransactItem {
  return putRecordItem({
    key: tokenKeys.claim(sha256Hex(token)),
    entity: 'DRIVER_TOKEN',
    codec: ownerCodec,
    record: driver,
    ifNew: true,
  });
}

/**
 * Items freeing the driver's token: its claim (only while it is this driver's, so a mix-up never frees
 * another driver's token) and the lookup item of a driver created before claims.
 */
export function releaseTokenItems(driver: DriverRef, token: string): TransactItem[] {
  const tokenHash = sha256Hex(token);
  return [
    {
      Delete: {
        TableName: tableName(),
        Key: tokenKeys.claim(tokenHash),
        ConditionExpression:
          'attribute_not_exists(pk) OR (account_id = :account AND dc_id = :dc AND driver_id = :driver)',
        ExpressionAttributeValues: {
          ':account': driver.accountId,
          ':dc': driver.dcId,
          ':driver': driver.driverId,
        },
      },
    },
    { Delete: { TableName: tableName(), Key: tokenKeys.legacyLookup(tokenHash, driver) } },
  ];
}
