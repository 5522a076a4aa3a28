import { invoiceStatus } from '../../domain/route-reports';
import { getInvoiceStatus as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { invoiceStatusView } from './views';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const invoices = await invoiceStatus({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  });
  return { invoices: invoices.map(invoiceStatusView) };
});
