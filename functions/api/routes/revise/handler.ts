import { acceptRevision } from '../../../domain/route-revisions';
import { appendLogKeys } from '../../../shared/observability';
import { httpHandler, WithStatus } from '../../http-handler';
import { routeRef } from '../../refs';
import { reviseRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const txid = await acceptRevision(routeRef(caller, params), body.route);
  appendLogKeys({ txid });
  return new WithStatus(202, { txid });
});
