import { acceptImport } from '../../../domain/route-import';
import { appendLogKeys, countMetric } from '../../../shared/observability';
import { httpHandler, WithStatus } from '../../http-handler';
import { importRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const txid = await acceptImport(caller.accountId, params.dc_id, body.route);
  countMetric('ImportsAccepted');
  appendLogKeys({ txid });
  return new WithStatus(202, { txid });
});
