import { invoiceStatus } from '../../../domain/route-reports';
import { proxyBytesOf } from '../../../shared/limits';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { invoiceStatusView, itemStatusView } from '../views';
import { getInvoiceStatus as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await invoiceStatus(routeRef(caller, params), {
    limit: query.limit,
    nextToken: query.next_token,
    invoiceHeaderBytes: (invoice) => proxyBytesOf(invoiceStatusView({ ...invoice, items: [] })),
    itemBytes: (item) => proxyBytesOf(itemStatusView(item)),
  });
  return { invoices: page.items.map(invoiceStatusView), next_token: page.nextToken };
});
