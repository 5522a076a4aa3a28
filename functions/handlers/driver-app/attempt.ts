import { recordAttempt } from '../../domain/attempts';
import { recordDriverAttempt as endpoint } from '../../endpoints/driver-app';
import { httpHandler } from '../../shared/http-handler';
import { attemptView } from '../routes/views';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const { attempt } = await recordAttempt(caller, params.route_id, params.waypoint_id, body);
  return { attempt: attemptView(attempt) };
});
