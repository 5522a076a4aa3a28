import { importStatus } from '../../domain/route-import';
import { getImportStatus as endpoint } from '../../endpoints/routes';
import { ERROR_CODES, errorCodeName } from '../../shared/error-codes';
import { ApiError } from '../../shared/errors';
import { httpHandler, WithStatus } from '../../shared/http-handler';

/** 202 while pending, 200 with the route id once imported, 400 with the code the import failed with. */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const record = await importStatus(caller.accountId, params.dc_id, params.txid);
  if (record.status === 'PENDING') return new WithStatus(202, { txid: record.txid, status: 'PENDING' });
  if (record.status === 'SUCCEEDED')
    return { txid: record.txid, status: 'SUCCEEDED' as const, route_id: record.routeId };
  const code = record.error?.code ?? ERROR_CODES.INTERNAL.code;
  throw new ApiError(
    errorCodeName(code),
    `import ${record.txid} failed: ${record.error?.message ?? 'unknown error'}`,
    400,
  );
});
