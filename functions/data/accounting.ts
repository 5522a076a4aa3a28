import { ValidationError } from '../shared/errors';
import { newClaimItem } from './claims';
import { writeTransactionParts } from './client';
import { codec } from './codec';
import { getRecord, putRecordItem } from './item-ops';
import { decodeNextToken, encodeNextToken, type Page, type PageRequest, queryPrefix } from './pagination';
import { type RouteHeader, routeKeys, routeUnchangedCheck } from './routes';
import type { TableKey } from './table-schema';

export interface AccountingRecord {
  id: string;
  driverId: string;
  cashReceivedCents: number;
  cashContainerId: string;
  createdAt: number;
}

/** Cash accounting records live in their route's partition as `ACCT#<record id>`. */
const PREFIX = 'ACCT#';

const recordKey = (accountId: string, routeId: string, recordId: string): TableKey =>
  routeKeys.row(accountId, routeId, `${PREFIX}${recordId}`);

const recordCodec = codec<AccountingRecord>({
  id: { attr: 'record_id' },
  driverId: {},
  cashReceivedCents: {},
  cashContainerId: {},
  createdAt: {},
});

const fromItem = recordCodec.fromItem;

/** A record from its item (a route's rows name the record ids they hold claims for). */
export const accountingRecordFromItem = fromItem;

/**
 * Adds a new record to the route in one transaction with the claim of its id in the account (record ids are
 * unique per account; the claim carries the route's import txid so deleting the route frees it), on
 * condition that the route is still as `route` was read: 'created', or 'id_taken' when the id is claimed, or
 * 'route_changed'.
 */
export async function insertAccountingRecord(
  route: RouteHeader,
  record: AccountingRecord,
): Promise<'created' | 'id_taken' | 'route_changed'> {
  const { accountId, routeId, importTxid } = route;
  const outcome = await writeTransactionParts([
    {
      items: [
        newClaimItem(accountId, { kind: 'ACCOUNTING_RECORD', id: record.id }, { txid: importTxid, routeId }),
      ],
      refusedAs: 'id_taken',
    },
    {
      items: [
        putRecordItem({
          key: recordKey(accountId, routeId, record.id),
          entity: 'ACCOUNTING_RECORD',
          codec: recordCodec,
          record,
        }),
      ],
    },
    { items: [routeUnchangedCheck(route)], refusedAs: 'route_changed' },
  ]);
  return outcome === 'written' ? 'created' : outcome;
}

export const getAccountingRecord = (accountId: string, routeId: string, recordId: string) =>
  getRecord(recordKey(accountId, routeId, recordId), fromItem);

/**
 * The route's records in the order they were created: all of them, or one page. Keys are record ids, not
 * times, so every page reads all of the route's records (a few per driver and route) and cuts its rows
 * after the record the token names.
 */
export async function listAccountingRecords(
  accountId: string,
  routeId: string,
  page?: PageRequest,
): Promise<Page<AccountingRecord>> {
  const partition = routeKeys.route(accountId, routeId).pk;
  const after = decodeNextToken(page?.nextToken, partition, PREFIX);
  const { items } = await queryPrefix(partition, PREFIX);
  const records = items.map(fromItem).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const start = after ? records.findIndex((record) => `${PREFIX}${record.id}` === after.sk) + 1 : 0;
  if (after && start === 0) throw new ValidationError('query.next_token: names no record of this route');
  const end = page ? start + page.limit : records.length;
  const last = records[end - 1];
  return {
    items: records.slice(start, end),
    nextToken:
      end < records.length && last ? encodeNextToken(recordKey(accountId, routeId, last.id)) : undefined,
  };
}
