import { EpochMillis, Id } from '../../../models/common';
import { PROOF_LIMITS } from '../../../shared/limits';
import { PROOFS_PREFIX } from '../../../shared/resources';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { ProofContentType, ProofSizeBytes, ProofStatus, ProofType } from '../../routes/proof-schemas';
import { driverAppEndpoint, RouteParams } from '../schemas';

export const ProofUploadRequest = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({ type: ProofType, content_type: ProofContentType, size_bytes: ProofSizeBytes }),
  { id: 'ProofUploadRequest' },
);

export const createDriverProof = /* @__PURE__ */ driverAppEndpoint(
  'POST /driver/routes/{route_id}/waypoints/{waypoint_id}/proofs',
  {
    operationId: 'createDriverProof',
    module: import.meta.url,
    summary:
      'Add a photo or signature to a waypoint of a started route: PUT its bytes to upload_url with upload_headers (the declared Content-Type and Content-Length, and If-None-Match: *)',
    description: `The proof is PENDING_UPLOAD until its object arrives; it is then checked (its first bytes must be those of content_type, its size size_bytes) and becomes AVAILABLE with its sha256, or REJECTED. The upload link works for ${PROOF_LIMITS.uploadLinkSeconds / 60} minutes, for one object: the PUT must send \`If-None-Match: *\` (in \`upload_headers\`), and a PUT once the object is there is refused by S3 (412), so the bytes checked are the bytes served. At most ${PROOF_LIMITS.perWaypoint} proofs per waypoint.`,
    // Only presigns PUTs of proof keys; the object's arrival starts its check (S3 event notification).
    access: {
      table: 'readWrite',
      signLinks: { access: 'write', keyPrefix: PROOFS_PREFIX, createOnly: true },
    },
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { waypoint_id: Id }), body: ProofUploadRequest },
    responses:
      import.meta.responseSchemas !== false &&
      ok(
        'the new proof with its upload link',
        z.object({
          proof: /* @__PURE__ */ z.object({
            id: /* @__PURE__ */ z.string(),
            type: ProofType,
            status: ProofStatus,
            upload_url: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
              description: 'presigned S3 PUT link; send exactly the headers of upload_headers',
            }),
            upload_headers: /* @__PURE__ */ z.withMeta(
              /* @__PURE__ */ z.object({
                'Content-Type': ProofContentType,
                'Content-Length': /* @__PURE__ */ z.string(),
                'If-None-Match': /* @__PURE__ */ z.literal('*'),
              }),
              {
                description:
                  'the headers the PUT must send, as signed into upload_url (S3 refuses other values with 403): the declared type and size, and If-None-Match: * (the link only creates the object; once it is there S3 answers 412)',
              },
            ),
            upload_expiration_timestamp: /* @__PURE__ */ z.withMeta(EpochMillis, {
              description: 'when upload_url stops working',
            }),
          }),
        }),
      ),
    errorCodes: [3003, 3011, 3012, 3013, 9000, 3102],
  },
);
