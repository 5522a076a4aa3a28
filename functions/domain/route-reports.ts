import { type AccountingRecord, listAccountingRecords } from '../data/accounting';
import { getRouteHeader, type InvoiceRow, listInvoiceRows } from '../data/routes';
import { ApiError } from '../shared/errors';

/** The spec answers 400 (not 404) with 3003 on these two reads. */
async function requireRouteForReport(accountId: string, dcId: string, routeId: string): Promise<void> {
  const header = await getRouteHeader(accountId, routeId);
  if (!header || header.dcId !== dcId || header.deleting) {
    throw new ApiError('ROUTE_NOT_FOUND', `route '${routeId}' does not exist in DC '${dcId}'`, 400);
  }
}

/** Every invoice of the route with its items' latest statuses, in import order. */
export async function invoiceStatus(accountId: string, dcId: string, routeId: string): Promise<InvoiceRow[]> {
  await requireRouteForReport(accountId, dcId, routeId);
  return listInvoiceRows(accountId, routeId);
}

export async function accountingRecords(
  accountId: string,
  dcId: string,
  routeId: string,
): Promise<AccountingRecord[]> {
  await requireRouteForReport(accountId, dcId, routeId);
  return listAccountingRecords(accountId, routeId);
}
