import { digestObject } from '../data/bucket';
import { proofObjectOf } from '../data/bucket-keys';
import { getProof, type ProofCheckOutcome, type ProofContentType, settleProof } from '../data/proofs';
import type { UploadArrival } from '../models/channels';
import { config } from '../shared/config';
import { lifecycleExpiry } from '../shared/resources';

/*
 * The check of an uploaded proof's object (the check-proofs worker). Apart from the proof requests and reads
 * (proofs.ts): it reads the bucket, and the S3 client's SDK code would weigh on the cold starts of the
 * functions that only sign the proofs' links.
 */

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
  const { lastModified, digest } = await digestObject(arrival.key, {
    maxBytes: proof.sizeBytes,
    firstBytes: 12,
  });
  // The proof ends when its object does, whatever the check finds.
  const times = {
    uploadedAt: arrival.arrivedAt,
    expiresAt: lifecycleExpiry(lastModified, config().proofRetentionDays),
  };
  const outcome: ProofCheckOutcome =
    digest === undefined
      ? { ...times, status: 'REJECTED', rejection: `larger than the declared ${proof.sizeBytes} bytes` }
      : digest.size !== proof.sizeBytes
        ? {
            ...times,
            status: 'REJECTED',
            rejection: `${digest.size} bytes, not the declared ${proof.sizeBytes}`,
          }
        : !SIGNATURES[proof.contentType](digest.firstBytes)
          ? {
              ...times,
              status: 'REJECTED',
              rejection: `its first bytes are not those of ${proof.contentType}`,
            }
          : { ...times, status: 'AVAILABLE', sha256: digest.sha256 };
  const settled = await settleProof(accountId, routeId, sequence, proofId, outcome);
  return settled ? outcome.status : 'IGNORED';
}
