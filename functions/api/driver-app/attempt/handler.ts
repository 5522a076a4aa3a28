import { recordAttempt } from '../../../domain/attempts';
import { httpHandler } from '../../http-handler';
import { attemptView } from '../../routes/views';
import { recordDriverAttempt as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const { proof_ids: proofIds, signer_name: signerName, scans, age_check: ageCheck, ...visit } = body;
  const { attempt } = await recordAttempt(caller, params.route_id, params.waypoint_id, {
    ...visit,
    proofIds,
    signerName,
    scans: scans?.map(({ item_id: itemId, ...scan }) => ({ ...scan, itemId })),
    ageCheck: ageCheck && { method: ageCheck.method, dateOfBirth: ageCheck.date_of_birth },
  });
  return { attempt: attemptView(attempt) };
});
