import { PAGE_BYTES_NOTE, pagedQuery, pageOf } from '../../../models/common';
import { ok } from '../../define';
import { InvoiceStatus } from '../invoice-schemas';
import { ROUTE_PAGE_SIZES, RouteParams, routesEndpoint } from '../schemas';

export const getInvoiceStatus = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/invoices',
  {
    operationId: 'getInvoiceStatus',
    module: import.meta.url,
    summary:
      'Per-item status of every invoice of a route, in import order, a page of invoice and item rows at a time',
    description:
      '`limit` counts rows: each invoice and each item is one. An invoice cut by a page boundary continues on the next page under the same invoice id (with its payment method and name attributes again), holding the items that follow. ' +
      PAGE_BYTES_NOTE,
    // The spec answers a missing route here with 400, not 404.
    errorStatuses: { 3003: 400 },
    request: { params: RouteParams, query: /* @__PURE__ */ pagedQuery(ROUTE_PAGE_SIZES.invoiceRows) },
    responses:
      import.meta.responseSchemas !== false &&
      ok('invoices in import order', pageOf('invoices', InvoiceStatus)),
  },
);
