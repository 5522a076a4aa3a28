import { proofsOfWaypoint } from '../../../domain/proofs';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { proofView } from '../views';
import { listWaypointProofs as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const proofs = await proofsOfWaypoint(routeRef(caller, params), params.waypoint_id);
  return { proofs: proofs.map(proofView) };
});
