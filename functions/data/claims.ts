import { chunks, inParallel } from '../shared/parallel';
import { quote } from '../shared/quote';
import { deleteAll, getAll, insertItems, MAX_BATCH_STATEMENTS, tableName } from './client';
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
 * (384 bytes) in the key and as the route id it stays under 1 KB: one write unit (two in a transaction).
 */
export const claimItem = (accountId: string, claim: Claim, holder: ClaimHolder) => ({
  ...claimKey(accountId, claim),
  entity: 'CLAIM',
  ...holderCodec.toItem(holder),
});

/**
 * An import takes its claims as PartiQL INSERTs, CLAIMS_PER_BATCH per BatchExecuteStatement, CLAIM_PARALLELISM
 * in flight (docs/architecture.md, "Id claims" has the measurements behind both).
 */
export const CLAIMS_PER_BATCH = MAX_BATCH_STATEMENTS;
export const CLAIM_PARALLELISM = 8;

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
 * Takes every claim for `txid`, each inserted where nobody holds it (docs/architecture.md, "Id claims" says
 * why not transactions). Taking a claim this txid already holds succeeds, so a retried import goes through.
 * Throws ClaimConflict when another import holds one of them, naming the first of a batch in the order given;
 * the claims taken so far stay held by `txid` (release them with releaseClaims).
 */
export async function takeClaims(
  accountId: string,
  claims: readonly Claim[],
  txid: string,
  routeId: string,
): Promise<void> {
  await inParallel(chunks(claims, CLAIMS_PER_BATCH), CLAIM_PARALLELISM, async (chunk) => {
    let pending: readonly Claim[] = chunk;
    while (pending.length) {
      const items = pending.map((claim) => claimItem(accountId, claim, { txid, routeId }));
      const taken = new Set(await insertItems(items));
      if (!taken.size) return;
      const duplicates = pending.filter((_, index) => taken.has(items[index] as (typeof items)[number]));
      const holders = new Map(
        (await findHeldClaims(accountId, duplicates)).map((held) => [`${held.kind}/${held.id}`, held]),
      );
      const other = duplicates.find((claim) => {
        const holder = holders.get(`${claim.kind}/${claim.id}`);
        return holder !== undefined && holder.txid !== txid;
      });
      if (other) throw new ClaimConflict(other);
      // Released between the insert and the read: free again, so inserted again.
      pending = duplicates.filter((claim) => !holders.has(`${claim.kind}/${claim.id}`));
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
