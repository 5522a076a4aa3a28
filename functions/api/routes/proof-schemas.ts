import { EpochMillis } from '../../models/common';
import { PROOF_LIMITS } from '../../shared/limits';
import * as z from '../../shared/zod';

/** A proof's id, as the service made it (`prf_` and 16 hex digits). */
export const ProofId = z
  .string()
  .check(
    z.regex(
      /^prf_[0-9a-f]{16}$/,
      'must be a proof id as the proof POST answered it (prf_ and 16 hex digits)',
    ),
  );

export const ProofType = z.withMeta(z.enum(['PHOTO', 'SIGNATURE']), { id: 'ProofType' });

export const ProofContentType = z.withMeta(z.enum(['image/jpeg', 'image/png', 'image/webp']), {
  id: 'ProofContentType',
  description: 'the media type of the bytes; their first bytes are checked',
});

export const ProofStatus = z.withMeta(z.enum(['PENDING_UPLOAD', 'AVAILABLE', 'REJECTED']), {
  id: 'ProofStatus',
  description:
    'PENDING_UPLOAD until its object arrives and is checked; then AVAILABLE, or REJECTED (its first bytes or size are not the declared ones) and never served',
});

export const ProofSizeBytes = z.withMeta(
  z.number().check(z.int(), z.minimum(1), z.maximum(PROOF_LIMITS.maxBytes)),
  { description: `the exact size of the bytes the app will PUT (at most ${PROOF_LIMITS.maxBytes})` },
);

/** A proof as the dispatcher reads it. */
export const Proof = z.withMeta(
  z.object({
    id: z.string(),
    type: ProofType,
    status: ProofStatus,
    content_type: ProofContentType,
    size_bytes: z.int(),
    sha256: z.withMeta(z.nullable(z.string()), { description: 'hex SHA-256 of the object, once AVAILABLE' }),
    uploaded_timestamp: z.withMeta(z.nullable(EpochMillis), { description: 'when S3 received the object' }),
    attempt_id: z.withMeta(z.nullable(z.string()), { description: 'the attempt that names the proof' }),
    download_link: z.withMeta(z.nullable(z.string()), {
      description: 'presigned GET link while AVAILABLE; null otherwise',
    }),
    expiration_timestamp: z.withMeta(z.nullable(EpochMillis), {
      description: 'when download_link stops working',
    }),
  }),
  { id: 'Proof', description: 'a photo or signature taken at a waypoint (proof of delivery)' },
);
