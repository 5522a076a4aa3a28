import { type AccountingRecord, listAccountingRecords } from '../data/accounting';
import { type InvoiceRow, listInvoiceRows } from '../data/routes';
import { requireRoute } from './routes';

/** The spec answers 400 (not 404) with 3003 on these two reads. */
const NOT_FOUND_STATUS = 400;

/** Every invoice of the route with its items' latest statuses, in import order. */
export async function invoiceStatus(accountId: string, dcId: string, routeId: string): Promise<InvoiceRow[]> {
  await requireRoute({ accountId, dcId, routeId }, NOT_FOUND_STATUS);
  return listInvoiceRows(accountId, routeId);
}

export async function accountingRecords(
  accountId: string,
  dcId: string,
  routeId: string,
): Promise<AccountingRecord[]> {
  await requireRoute({ accountId, dcId, routeId }, NOT_FOUND_STATUS);
  return listAccountingRecords(accountId, routeId);
}
