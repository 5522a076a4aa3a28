import { invoiceStatus } from '../../domain/route-reports';
import { getInvoiceStatus as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const invoices = await invoiceStatus(caller.accountId, params.dc_id, params.route_id);
  return {
    invoices: invoices.map((invoice) => ({
      id: invoice.id,
      payment_method: invoice.paymentMethod ?? null,
      invoice_name_attributes: invoice.nameAttributes,
      items: invoice.items.map((item) => ({
        id: item.id,
        sku: item.sku ?? null,
        name: item.name ?? null,
        quantity: item.quantity,
        total_price_cents: item.totalPriceCents,
        currency: item.currency,
        status: item.status ?? null,
      })),
    })),
  };
});
