import { queryItems } from './client';
import { routeKeys } from './routes';

export interface AccountingRecord {
  id: string;
  driverId: string;
  cashReceivedCents: number;
  cashContainerId: string;
  createdAt: number;
}

/** Cash accounting records live in their route's partition as `ACCT#<record id>` (written by the driver app). */
const PREFIX = 'ACCT#';

export async function listAccountingRecords(accountId: string, routeId: string): Promise<AccountingRecord[]> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': routeKeys.route(accountId, routeId).pk, ':prefix': PREFIX },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    id: item.record_id,
    driverId: item.driver_id,
    cashReceivedCents: item.cash_received_cents,
    cashContainerId: item.cash_container_id,
    createdAt: item.created_at,
  }));
}
