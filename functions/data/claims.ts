import { chunks, inParallel } from '../shared/parallel';
import { quote } from '../shared/quote';
import { deleteAll, getAll, tableName, writeTransaction } from './client';
import { codec } from './codec';
import type { TableKey } from './table-schema';

/**
 * Ids the spec calls globally unique are unique per account (docs/architecture.md, Decisions): one claim item per id, taken
 * with a conditional write, holds the id for the route that uses it.
 */
export type ClaimKind = 'ROUTE' | 'WAYPOINT' | 'INVOICE' | 'ITEM' | 'ACCOUNTING_RECORD';

export interface Claim {
  kind: ClaimKind;
  id: string;
}

/** Who holds a claim: the import and the route it is for. */
export interface ClaimHolder {
  routeId: string;
  txid: string;
}

export interface HeldClaim extends Claim, ClaimHolder {}

export const claimKey = (accountId: string, claim: Claim): TableKey => ({
  pk: `CLAIM#${accountId}/${claim.kind}/${claim.id}`,
  sk: 'CLAIM',
});

const holderCodec = codec<ClaimHolder>({ routeId: {}, txid: {} });

/**
 * A claim item: its key names the kind and the id, so the item holds only its holder. With the longest ids
 * (384 bytes) in the key and as the route id it stays under 1 KB: one write unit, two in a transaction.
 */
export const claimItem = (accountId: string, claim: Claim, holder: ClaimHolder) => ({
  ...claimKey(accountId, claim),
  entity: 'CLAIM',
  ...holderCodec.toItem(holder),
});

/** An import takes its claims in transactions of CLAIMS_PER_TRANSACTION, CLAIM_PARALLELISM in flight. */
export const CLAIMS_PER_TRANSACTION = 100;
export const CLAIM_PARALLELISM = 4;

/** Raised when an id is held by another import; names the first such id. */
export class ClaimConflict extends Error {
  constructor(readonly claim: Claim) {
    super(`${claim.kind.toLowerCase()} id ${quote(claim.id)} is taken`);
  }
}

/** The claims among `claims` that are held (by any import), in the order given. */
export async function findHeldClaims(accountId: string, claims: readonly Claim[]): Promise<HeldClaim[]> {
  const items = await getAll(claims.map((claim) => claimKey(accountId, claim)));
  const held = new Map(items.map((item) => [item.pk as string, item]));
  return claims.flatMap((claim) => {
    const item = held.get(claimKey(accountId, claim).pk);
    return item ? [{ ...claim, ...holderCodec.fromItem(item) }] : [];
  });
}

/** Transaction item taking a claim that nobody holds (its condition fails when the id is taken). */
export function newClaimItem(accountId: string, claim: Claim, holder: ClaimHolder) {
  return {
    Put: {
      TableName: tableName(),
      Item: claimItem(accountId, claim, holder),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Transaction item releasing a claim `txid` holds; one that is not held is left as it is (no condition fails). */
export function releaseClaimItem(accountId: string, claim: Claim, txid: string) {
  return {
    Delete: {
      TableName: tableName(),
      Key: claimKey(accountId, claim),
      ConditionExpression: 'attribute_not_exists(pk) OR txid = :txid',
      ExpressionAttributeValues: { ':txid': txid },
    },
  };
}

/**
 * Takes every claim for `txid`, 100 per transaction (docs/architecture.md, "Id claims" says why not single
 * puts). Taking a claim this txid already holds succeeds, so a retried import goes through. Throws
 * ClaimConflict when another import holds one of them; the claims taken so far stay held by `txid` (release
 * them with releaseClaims).
 */
export async function takeClaims(
  accountId: string,
  claims: readonly Claim[],
  txid: string,
  routeId: string,
): Promise<void> {
  await inParallel(chunks(claims, CLAIMS_PER_TRANSACTION), CLAIM_PARALLELISM, async (chunk) => {
    try {
      await writeTransaction(
        chunk.map((claim) => ({
          Put: {
            TableName: tableName(),
            Item: claimItem(accountId, claim, { txid, routeId }),
            ConditionExpression: 'attribute_not_exists(pk) OR txid = :txid',
            ExpressionAttributeValues: { ':txid': txid },
          },
        })),
      );
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      const index = reasons?.findIndex((reason) => reason.Code === 'ConditionalCheckFailed') ?? -1;
      const conflicting = chunk[index];
      if (conflicting) throw new ClaimConflict(conflicting);
      throw error;
    }
  });
}

/**
 * Releases the claims `txid` holds among `claims`. Race-free without conditions: a claim held by
 * `txid` cannot change hands until it is deleted, so what the read finds as ours is still ours.
 */
export async function releaseClaims(
  accountId: string,
  claims: readonly Claim[],
  txid: string,
): Promise<void> {
  const ours = (await findHeldClaims(accountId, claims)).filter((claim) => claim.txid === txid);
  await deleteAll(ours.map((claim) => claimKey(accountId, claim)));
}
