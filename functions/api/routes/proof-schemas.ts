import * as z from 'zod';
import { EpochMillis } from '../../models/common';
import { PROOF_LIMITS } from '../../shared/limits';

/** A proof's id, as the service made it (`prf_` and 16 hex digits). */
export const ProofId = z
  .string()
  .regex(/^prf_[0-9a-f]{16}$/, 'must be a proof id as the proof POST answered it (prf_ and 16 hex digits)');

export const ProofType = z.enum(['PHOTO', 'SIGNATURE']).meta({ id: 'ProofType' });

export const ProofContentType = z.enum(['image/jpeg', 'image/png', 'image/webp']).meta({
  id: 'ProofContentType',
  description: 'the media type of the bytes; their first bytes are checked',
});

export const ProofStatus = z.enum(['PENDING_UPLOAD', 'AVAILABLE', 'REJECTED']).meta({
  id: 'ProofStatus',
  description:
    'PENDING_UPLOAD until its object arrives and is checked; then AVAILABLE, or REJECTED (its first bytes or size are not the declared ones) and never served',
});

export const ProofSizeBytes = z
  .number()
  .int()
  .min(1)
  .max(PROOF_LIMITS.maxBytes)
  .meta({ description: `the exact size of the bytes the app will PUT (at most ${PROOF_LIMITS.maxBytes})` });

/** A proof as the dispatcher reads it. */
export const Proof = z
  .object({
    id: z.string(),
    type: ProofType,
    status: ProofStatus,
    content_type: ProofContentType,
    size_bytes: z.number().int(),
    sha256: z.string().nullable().meta({ description: 'hex SHA-256 of the object, once AVAILABLE' }),
    uploaded_timestamp: EpochMillis.nullable().meta({ description: 'when S3 received the object' }),
    attempt_id: z.string().nullable().meta({ description: 'the attempt that names the proof' }),
    download_link: z
      .string()
      .nullable()
      .meta({ description: 'presigned GET link while AVAILABLE; null otherwise' }),
    expiration_timestamp: EpochMillis.nullable().meta({ description: 'when download_link stops working' }),
  })
  .meta({ id: 'Proof', description: 'a photo or signature taken at a waypoint (proof of delivery)' });
