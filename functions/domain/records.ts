/**
 * Stored records that the API's views turn into response bodies as they are, with no rule of the domain
 * between: the views import their types from here, so that nothing above the domain reaches into data/.
 */
export type { AccountingRecord } from '../data/accounting';
export type { Attempt } from '../data/attempts';
export type { Optimization } from '../data/optimizations';
export type { InvoiceRow, ItemRow } from '../data/route-rows';
export type { DeliveryAttempt } from '../data/webhook-deliveries';
