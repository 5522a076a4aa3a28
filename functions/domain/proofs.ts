import {
  bucketKeys,
  digestObject,
  type PresignedLink,
  presignedDownloadLink,
  presignedUploadLink,
  proofObjectOf,
} from '../data/bucket';
import {
  getProof,
  listWaypointProofs,
  type Proof,
  type ProofCheckOutcome,
  type ProofContentType,
  type ProofType,
  putNewProof,
  settleProof,
} from '../data/proofs';
import { waypointSequenceOf } from '../data/routes';
import type { UploadArrival } from '../models/channels';
import type { DriverCaller } from '../shared/auth-context';
import { randomId } from '../shared/crypto';
import { ConflictError } from '../shared/errors';
import { PROOF_LIMITS } from '../shared/limits';
import { quote } from '../shared/quote';
import { type RouteHeader, type RouteRef, rejectFinalized, requireRoute } from './routes';

export type { Proof, ProofContentType, ProofType };

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
 * route (3013) with fewer than PROOF_LIMITS.perWaypoint proofs (9000). The link takes exactly the declared
 * Content-Type and Content-Length; the object is checked when S3 reports it (checkUploadedProof).
 */
export async function requestProofUpload(
  driver: DriverCaller,
  routeId: string,
  waypointId: string,
  request: ProofRequest,
): Promise<{ proof: Proof; upload: PresignedLink }> {
  const route = await requireRoute({ ...driver, routeId });
  rejectFinalized(route);
  if (route.startedTimestamp === undefined) {
    throw new ConflictError(
      'TRANSITION_NOT_ALLOWED',
      `route ${quote(routeId)} has not started; start it first`,
    );
  }
  const sequence = waypointSequence(route, waypointId);
  const existing = await listWaypointProofs(driver.accountId, routeId, sequence);
  if (existing.length >= PROOF_LIMITS.perWaypoint) {
    throw new ConflictError(
      'PROOF_LIMIT_REACHED',
      `waypoint ${quote(waypointId)} already has ${existing.length} proofs, the most it may have`,
    );
  }
  const id = randomId('prf_');
  const upload = await presignedUploadLink(
    bucketKeys.proof(driver.accountId, routeId, sequence, id),
    PROOF_LIMITS.uploadLinkSeconds,
    { contentType: request.contentType, contentLength: request.sizeBytes },
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
  };
  await putNewProof(driver.accountId, routeId, proof);
  return { proof, upload };
}

/** How each accepted type's files begin (their magic numbers); WebP: `RIFF`, 4 bytes of size, `WEBP`. */
const SIGNATURES: Record<ProofContentType, (head: Buffer) => boolean> = {
  'image/jpeg': (head) => head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  'image/png': (head) =>
    head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/webp': (head) =>
    head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP',
};

export type ProofCheck = 'AVAILABLE' | 'REJECTED' | 'IGNORED';

/**
 * Checks an object S3 reports created under the proofs prefix against its proof: exactly the declared size,
 * and first bytes of the declared type. The proof becomes AVAILABLE with the object's SHA-256, or REJECTED
 * (never served). An object of no pending proof (a repeated notification, a deleted route, a key of another
 * shape) is IGNORED. Safe to repeat: only a pending proof changes.
 */
export async function checkUploadedProof(arrival: UploadArrival): Promise<ProofCheck> {
  const object = proofObjectOf(arrival.key);
  if (!object) return 'IGNORED';
  const { accountId, routeId, sequence, proofId } = object;
  const proof = await getProof(accountId, routeId, sequence, proofId);
  if (proof?.status !== 'PENDING_UPLOAD') return 'IGNORED';
  const digest = await digestObject(arrival.key, { maxBytes: proof.sizeBytes, firstBytes: 12 });
  const outcome: ProofCheckOutcome =
    digest === undefined
      ? {
          status: 'REJECTED',
          rejection: `larger than the declared ${proof.sizeBytes} bytes`,
          uploadedAt: arrival.arrivedAt,
        }
      : digest.size !== proof.sizeBytes
        ? {
            status: 'REJECTED',
            rejection: `${digest.size} bytes, not the declared ${proof.sizeBytes}`,
            uploadedAt: arrival.arrivedAt,
          }
        : !SIGNATURES[proof.contentType](digest.firstBytes)
          ? {
              status: 'REJECTED',
              rejection: `its first bytes are not those of ${proof.contentType}`,
              uploadedAt: arrival.arrivedAt,
            }
          : { status: 'AVAILABLE', sha256: digest.sha256, uploadedAt: arrival.arrivedAt };
  const settled = await settleProof(accountId, routeId, sequence, proofId, outcome);
  return settled ? outcome.status : 'IGNORED';
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

/** The proofs of a waypoint of the route (404 / 3013), AVAILABLE ones with presigned download links. */
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
