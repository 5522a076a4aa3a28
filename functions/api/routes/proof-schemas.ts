import { EpochMillis } from '../../models/common';
import { PROOF_LIMITS } from '../../shared/limits';
import * as z from '../../shared/zod';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

/** A proof's id, as the service made it (`prf_` and 16 hex digits). */
export const ProofId = /* @__PURE__ */ z
  .string()
  .check(
    /* @__PURE__ */ z.regex(
      /^prf_[0-9a-f]{16}$/,
      'must be a proof id as the proof POST answered it (prf_ and 16 hex digits)',
    ),
  );

export const ProofType = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.enum(['PHOTO', 'SIGNATURE']), {
  id: 'ProofType',
});

export const ProofContentType = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.enum(['image/jpeg', 'image/png', 'image/webp']),
  {
    id: 'ProofContentType',
    description: 'the media type of the bytes; their first bytes are checked',
  },
);

export const ProofStatus = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.enum(['PENDING_UPLOAD', 'AVAILABLE', 'REJECTED']),
  {
    id: 'ProofStatus',
    description:
      'PENDING_UPLOAD until its object arrives and is checked; then AVAILABLE, or REJECTED (its first bytes or size are not the declared ones) and never served',
  },
);

// Apart: esbuild keeps a call whose argument reads a property or interpolates (PROOF_LIMITS.maxBytes).
const MAX_PROOF_BYTES = PROOF_LIMITS.maxBytes;
const PROOF_SIZE_DESCRIPTION = `the exact size of the bytes the app will PUT (at most ${MAX_PROOF_BYTES})`;

export const ProofSizeBytes = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .number()
    .check(/* @__PURE__ */ z.int(), /* @__PURE__ */ z.minimum(1), /* @__PURE__ */ z.maximum(MAX_PROOF_BYTES)),
  { description: PROOF_SIZE_DESCRIPTION },
);

/** A proof as the dispatcher reads it. */
export const Proof = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    type: ProofType,
    status: ProofStatus,
    content_type: ProofContentType,
    size_bytes: /* @__PURE__ */ z.int(),
    sha256: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'hex SHA-256 of the object, once AVAILABLE',
    }),
    uploaded_timestamp: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description: 'when S3 received the object',
    }),
    attempt_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'the attempt that names the proof',
    }),
    download_link: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
      description: 'presigned GET link while AVAILABLE; null otherwise',
    }),
    expiration_timestamp: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description: 'when download_link stops working',
    }),
  }),
  { id: 'Proof', description: 'a photo or signature taken at a waypoint (proof of delivery)' },
);
