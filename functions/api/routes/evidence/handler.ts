import { invoiceEvidence } from '../../../domain/evidence';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { evidenceView } from '../views';
import { getInvoiceEvidence as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const evidence = await invoiceEvidence(routeRef(caller, params), params.invoice_id);
  return { evidence: evidenceView(evidence) };
});
