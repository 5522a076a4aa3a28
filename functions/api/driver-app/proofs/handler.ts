import { type ProofContentType, requestProofUpload } from '../../../domain/proofs';
import { httpHandler } from '../../http-handler';
import { createDriverProof as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const { proof, upload } = await requestProofUpload(caller, params.route_id, params.waypoint_id, {
    type: body.type,
    contentType: body.content_type,
    sizeBytes: body.size_bytes,
  });
  return {
    proof: {
      id: proof.id,
      type: proof.type,
      status: proof.status,
      upload_url: upload.url,
      // The headers signed into the link (presignedUploadLink): the declared type and size, If-None-Match.
      upload_headers: upload.headers as {
        'Content-Type': ProofContentType;
        'Content-Length': string;
        'If-None-Match': '*';
      },
      upload_expiration_timestamp: upload.expiresAt,
    },
  };
});
