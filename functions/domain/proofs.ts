import { bucketKeys } from '../data/bucket-keys';
import {
  type PresignedLink,
  presignedDownloadLink,
  presignedUploadLink,
  type UploadLink,
} from '../data/bucket-links';
import {
  listWaypointProofs,
  type Proof,
  type ProofContentType,
  type ProofType,
  putNewProof,
} from '../data/proofs';
import { waypointSequenceOf } from '../data/routes';
import type { DriverCaller } from '../shared/auth-context';
import { config } from '../shared/config';
import { randomId } from '../shared/crypto';
import { ConflictError } from '../shared/errors';
import { PROOF_LIMITS } from '../shared/limits';
import { quote } from '../shared/quote';
import { lifecycleExpiry } from '../shared/resources';
import { type RouteHeader, type RouteRef, rejectUnlessUnderway, requireRoute } from './routes';

export type { Proof, ProofContentType, ProofType };

/** How often a proof's write is tried again when another proof of the waypoint was written at the same moment. */
const MAX_PROOF_WRITE_ATTEMPTS = 10;

export interface ProofRequest {
  type: ProofType;
  contentType: ProofContentType;
  sizeBytes: number;
}

/**
 * The waypoint's sequence, which keys its rows, attempts and proofs (not its position in the route, which
 * moves when an earlier waypoint is cancelled); 3013 when it is not on the route.
 */
export function waypointSequence(route: RouteHeader, waypointId: string): number {
  const sequence = waypointSequenceOf(route, waypointId);
  if (sequence === undefined) {
    throw new ConflictError(
      'NOT_ON_ROUTE',
      `waypoint ${quote(waypointId)} is not on route ${quote(route.routeId)}`,
    );
  }
  return sequence;
}

/**
 * A new proof of the waypoint, PENDING_UPLOAD, with the presigned link its bytes go to: only the route's
 * driver (404 otherwise), while the route is started and not finished (3011 / 3012), on a waypoint of the
 * route (3013) with fewer than PROOF_LIMITS.perWaypoint proofs (9000, counted in the proof's own write). The
 * link takes exactly the declared Content-Type and Content-Length, and only creates the object
 * (If-None-Match: *): a second PUT through it is refused, so the object checked is the one served. The object
 * is checked when S3 reports it (checkUploadedProof, proof-checks.ts). The proof ends when the bucket's
 * lifecycle rule expires its object (`proofRetentionDays`): reads no longer show it, and no attempt may name it.
 */
export async function requestProofUpload(
  driver: DriverCaller,
  routeId: string,
  waypointId: string,
  request: ProofRequest,
): Promise<{ proof: Proof; upload: UploadLink }> {
  const route = await requireRoute({ ...driver, routeId });
  rejectUnlessUnderway(route);
  const sequence = waypointSequence(route, waypointId);
  const limitReached = () =>
    new ConflictError(
      'PROOF_LIMIT_REACHED',
      `waypoint ${quote(waypointId)} already has ${PROOF_LIMITS.perWaypoint} proofs, the most it may have`,
    );
  const existing = await listWaypointProofs(driver.accountId, routeId, sequence);
  if (existing.length >= PROOF_LIMITS.perWaypoint) throw limitReached();
  const id = randomId('prf_');
  const upload = await presignedUploadLink(
    bucketKeys.proof(driver.accountId, routeId, sequence, id),
    PROOF_LIMITS.uploadLinkSeconds,
    // Create-only: a link works until it expires, and a second PUT must not replace the object once checked.
    { contentType: request.contentType, contentLength: request.sizeBytes, createOnly: true },
  );
  const proof: Proof = {
    id,
    waypointId,
    sequence,
    type: request.type,
    contentType: request.contentType,
    sizeBytes: request.sizeBytes,
    status: 'PENDING_UPLOAD',
    driverId: driver.driverId,
    createdAt: Date.now(),
    uploadExpiresAt: upload.expiresAt,
    // Its object, once uploaded, expires by then at the latest; the check sets when it does.
    expiresAt: lifecycleExpiry(upload.expiresAt, config().proofRetentionDays),
  };
  // The count is taken with the proof, so that requests at once cannot pass the limit together.
  for (let attempt = 1; ; attempt++) {
    const outcome = await putNewProof(driver.accountId, routeId, proof, {
      listed: existing.length,
      max: PROOF_LIMITS.perWaypoint,
    });
    if (outcome === 'recorded') break;
    if (outcome === 'limit_reached') throw limitReached();
    if (attempt >= MAX_PROOF_WRITE_ATTEMPTS) throw new Error(`proof ${id} kept racing other proofs' writes`);
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
  }
  return { proof, upload };
}

/** A proof as the dispatcher reads it: with a short-lived download link while it is AVAILABLE. */
export interface ServedProof {
  proof: Proof;
  download?: PresignedLink;
}

/** File name extensions of the accepted types, for the download's file name. */
const EXTENSIONS: Record<ProofContentType, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
};

/**
 * The proofs of a waypoint of the route (404 / 3013), AVAILABLE ones with presigned download links; those
 * past their retention are gone, as their objects are.
 */
export async function proofsOfWaypoint(ref: RouteRef, waypointId: string): Promise<ServedProof[]> {
  const route = await requireRoute(ref);
  const sequence = waypointSequence(route, waypointId);
  const proofs = await listWaypointProofs(ref.accountId, ref.routeId, sequence);
  return Promise.all(proofs.map((proof) => serveProof(ref.accountId, ref.routeId, proof)));
}

export async function serveProof(accountId: string, routeId: string, proof: Proof): Promise<ServedProof> {
  if (proof.status !== 'AVAILABLE') return { proof };
  const download = await presignedDownloadLink(
    bucketKeys.proof(accountId, routeId, proof.sequence, proof.id),
    PROOF_LIMITS.downloadLinkSeconds,
    `${proof.id}.${EXTENSIONS[proof.contentType]}`,
  );
  return { proof, download };
}
