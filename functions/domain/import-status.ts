import { getImport, getImportChanges } from '../data/imports';
import { ApiError } from '../shared/errors';
import { quote } from '../shared/quote';
import { noChanges, type RouteChanges } from './route-diff';

/*
 * What GET .../import-status reads, apart from the import itself (route-import.ts): that module reaches the
 * bucket, whose S3 client a status read never needs and whose SDK code would weigh on its cold start.
 */

export type ImportStatusView =
  | { status: 'PENDING' }
  | { status: 'SUCCEEDED'; routeId: string; changes?: RouteChanges }
  | { status: 'FAILED'; error: { code: number; message: string } };

/** What GET .../import-status answers, for the caller's DC only. */
export async function importStatus(accountId: string, dcId: string, txid: string): Promise<ImportStatusView> {
  const record = await getImport(accountId, txid);
  if (!record || record.dcId !== dcId)
    throw new ApiError('IMPORT_NOT_FOUND', `no route import ${quote(txid)} in DC ${quote(dcId)}`);
  // A SUCCEEDED record always has its route id: the import that succeeded set it.
  if (record.status === 'SUCCEEDED') {
    const routeId = record.routeId as string;
    if (record.kind !== 'REVISION') return { status: 'SUCCEEDED', routeId };
    // A revision that changed nothing stored no changes.
    const changes = await getImportChanges(accountId, txid);
    return { status: 'SUCCEEDED', routeId, changes: changes ? JSON.parse(changes) : noChanges() };
  }
  if (record.status === 'FAILED')
    return { status: 'FAILED', error: record.error ?? new ApiError('INTERNAL', 'unknown error') };
  return { status: 'PENDING' };
}
