import { queryPrefixItems, tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { getRecord, putRecordItem, updateIfHeld } from './item-ops';
import { routeKeys, type TransactItem } from './routes';
import type { TableKey } from './table-schema';

export type ProofType = 'PHOTO' | 'SIGNATURE';
export type ProofContentType = 'image/jpeg' | 'image/png' | 'image/webp';
/** PENDING_UPLOAD until the check of its object: then AVAILABLE (served) or REJECTED (never served). */
export type ProofStatus = 'PENDING_UPLOAD' | 'AVAILABLE' | 'REJECTED';

/** A photo or signature a driver took at a waypoint; its bytes are an object of the bucket (bucketKeys.proof). */
export interface Proof {
  id: string;
  waypointId: string;
  /** The waypoint's position in the route. */
  sequence: number;
  type: ProofType;
  contentType: ProofContentType;
  /** As declared when the upload was asked for; the object must have exactly this many bytes. */
  sizeBytes: number;
  status: ProofStatus;
  driverId: string;
  createdAt: number;
  /** When the upload link stops working (epoch ms). */
  uploadExpiresAt: number;
  /** The object's SHA-256 (hex), once checked. */
  sha256?: string;
  /** When S3 received the object (epoch ms), once checked. */
  uploadedAt?: number;
  /** Why the check refused the object. */
  rejection?: string;
  /** The attempt that names the proof; a proof is named by one attempt at most. */
  attemptId?: string;
  /**
   * When the bucket's lifecycle rule expires the proof's object (epoch ms, a midnight UTC): from then on the
   * proof is gone for every read, and DynamoDB's TTL deletes its item some time after. Until its object is
   * checked, when one uploaded through its link would expire at the latest; then when its object does
   * (shared/resources.ts, lifecycleExpiry). Absent on proofs requested before records ended with their files.
   */
  expiresAt?: number;
}

/** Whether the proof is past its object's lifetime: every read treats it as gone, as TTL will delete it. */
const isExpired = (proof: Proof, now: number) => proof.expiresAt !== undefined && proof.expiresAt <= now;

/**
 * Proofs live in their route's partition, sorted by waypoint, beside its attempts:
 *   PROOF#<wp seq 5>#<proof id>
 */
const PREFIX = 'PROOF#';
const waypointPrefix = (sequence: number) => `${PREFIX}${String(sequence).padStart(5, '0')}#`;

export const proofKey = (accountId: string, routeId: string, sequence: number, proofId: string): TableKey =>
  routeKeys.row(accountId, routeId, `${waypointPrefix(sequence)}${proofId}`);

/**
 * How many proofs the waypoint has had, beside them: `PROOFS#<wp seq 5>` (not under `PROOF#`, which lists
 * the proofs). Taken in the transaction that writes each new proof, so that the limit holds however many
 * requests arrive at once; deleted with the route's other rows.
 */
const proofCountKey = (accountId: string, routeId: string, sequence: number): TableKey =>
  routeKeys.row(accountId, routeId, `PROOFS#${String(sequence).padStart(5, '0')}`);

const proofCodec = codec<Proof>({
  id: { attr: 'proof_id' },
  waypointId: {},
  sequence: {},
  type: { attr: 'proof_type' },
  contentType: {},
  sizeBytes: {},
  status: {},
  driverId: {},
  createdAt: {},
  uploadExpiresAt: {},
  sha256: {},
  uploadedAt: {},
  rejection: {},
  attemptId: {},
  // The table's TTL attribute, in seconds: written beside the codec's fields (proofItem, settleProof).
  expiresAt: {
    attr: 'expires_at',
    read: (stored) => (typeof stored === 'number' ? stored * 1000 : undefined),
  },
});

const ttlOf = (expiresAt: number) => Math.floor(expiresAt / 1000);

/**
 * Writes a new proof, and counts it, unless the waypoint already has `max` proofs ('limit_reached'). `listed`
 * is how many proofs the waypoint had when read, which starts the count of a waypoint whose proofs were
 * written before it was kept. 'raced' when another request's proof was written at the same moment
 * (DynamoDB cancelled one of the two transactions): read again and retry. The proof's id is random: a clash
 * would be a bug, and fails the write.
 */
export async function putNewProof(
  accountId: string,
  routeId: string,
  proof: Proof,
  limits: { listed: number; max: number },
): Promise<'recorded' | 'limit_reached' | 'raced'> {
  const outcome = await writeTransactionParts(
    [
      {
        items: [
          {
            Update: {
              TableName: tableName(),
              Key: proofCountKey(accountId, routeId, proof.sequence),
              UpdateExpression:
                'SET proof_count = if_not_exists(proof_count, :listed) + :one, entity = :entity',
              ConditionExpression: 'attribute_not_exists(proof_count) OR proof_count < :max',
              ExpressionAttributeValues: {
                ':listed': limits.listed,
                ':one': 1,
                ':max': limits.max,
                ':entity': 'PROOF_COUNT',
              },
            },
          },
        ],
        refusedAs: 'limit_reached',
      },
      {
        items: [
          putRecordItem({
            key: proofKey(accountId, routeId, proof.sequence, proof.id),
            entity: 'PROOF',
            codec: proofCodec,
            record: proof,
            also: proof.expiresAt === undefined ? {} : { expires_at: ttlOf(proof.expiresAt) },
            ifNew: true,
          }),
        ],
      },
    ],
    { conflictAs: 'raced' },
  );
  return outcome === 'written' ? 'recorded' : outcome;
}

/** The proof, or undefined when there is none or it expired (isExpired). */
export async function getProof(
  accountId: string,
  routeId: string,
  sequence: number,
  proofId: string,
): Promise<Proof | undefined> {
  const proof = await getRecord(proofKey(accountId, routeId, sequence, proofId), proofCodec.fromItem);
  return proof && !isExpired(proof, Date.now()) ? proof : undefined;
}

/** The proofs of the waypoint at `sequence` that have not expired, in the order they were asked for. */
export async function listWaypointProofs(
  accountId: string,
  routeId: string,
  sequence: number,
): Promise<Proof[]> {
  const { items } = await queryPrefixItems(routeKeys.route(accountId, routeId).pk, waypointPrefix(sequence));
  const now = Date.now();
  return items
    .map(proofCodec.fromItem)
    .filter((proof) => !isExpired(proof, now))
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

/** What the check of a proof's object found; `expiresAt`: when the bucket expires that object. */
export type ProofCheckOutcome = { uploadedAt: number; expiresAt: number } & (
  | { status: 'AVAILABLE'; sha256: string }
  | { status: 'REJECTED'; rejection: string }
);

/**
 * Records the outcome of the check of a proof's object, once: only a proof still PENDING_UPLOAD changes,
 * and from then on ends when its object does. Returns the proof as it is after the change, or undefined when
 * it was no longer pending (a repeated notification) or is gone (its route was deleted).
 */
export async function settleProof(
  accountId: string,
  routeId: string,
  sequence: number,
  proofId: string,
  outcome: ProofCheckOutcome,
): Promise<Proof | undefined> {
  const detail =
    outcome.status === 'AVAILABLE'
      ? { expression: 'sha256 = :detail', value: outcome.sha256 }
      : { expression: 'rejection = :detail', value: outcome.rejection };
  const item = await updateIfHeld({
    Key: proofKey(accountId, routeId, sequence, proofId),
    UpdateExpression: `SET #status = :status, uploaded_at = :uploadedAt, expires_at = :expires, ${detail.expression}`,
    ConditionExpression: 'attribute_exists(pk) AND #status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':status': outcome.status,
      ':uploadedAt': outcome.uploadedAt,
      ':expires': ttlOf(outcome.expiresAt),
      ':detail': detail.value,
      ':pending': 'PENDING_UPLOAD',
    },
  });
  return item && proofCodec.fromItem(item);
}

/**
 * A transaction item naming the proof by `attemptId`: its condition holds while the proof is AVAILABLE, not
 * expired and named by no other attempt.
 */
export function attachProofItem(
  accountId: string,
  routeId: string,
  sequence: number,
  proofId: string,
  attemptId: string,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: proofKey(accountId, routeId, sequence, proofId),
      UpdateExpression: 'SET attempt_id = :attempt',
      ConditionExpression:
        'attribute_exists(pk) AND #status = :available AND (attribute_not_exists(attempt_id) OR attempt_id = :attempt) AND (attribute_not_exists(expires_at) OR expires_at > :now)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':attempt': attemptId,
        ':available': 'AVAILABLE',
        ':now': Math.floor(Date.now() / 1000),
      },
    },
  };
}
