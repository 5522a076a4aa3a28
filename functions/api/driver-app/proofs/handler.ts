import { requestProofUpload } from '../../../domain/proofs';
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
      upload_expiration_timestamp: upload.expiresAt,
    },
  };
});
