import { acceptImport } from '../../domain/route-import';
import { importRoute as endpoint } from '../../endpoints/routes';
import { httpHandler, WithStatus } from '../../shared/http-handler';
import { appendLogKeys, countMetric } from '../../shared/observability';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const txid = await acceptImport(caller.accountId, params.dc_id, body.route);
  countMetric('ImportsAccepted');
  appendLogKeys({ txid });
  return new WithStatus(202, { txid });
});
