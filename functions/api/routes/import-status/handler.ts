import { importStatus } from '../../../domain/import-status';
import { errorCodeName } from '../../../shared/error-codes';
import { ApiError } from '../../../shared/errors';
import { httpHandler, WithStatus } from '../../http-handler';
import { getImportStatus as endpoint } from './endpoint';

/** 202 while pending, 200 with the route id once imported, 400 with the code the import failed with. */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const { txid } = params;
  const view = await importStatus(caller.accountId, params.dc_id, txid);
  if (view.status === 'PENDING') return new WithStatus(202, { txid, status: 'PENDING' });
  if (view.status === 'SUCCEEDED')
    return { txid, status: 'SUCCEEDED' as const, route_id: view.routeId, changes: view.changes };
  throw new ApiError(errorCodeName(view.error.code), `import ${txid} failed: ${view.error.message}`);
});
