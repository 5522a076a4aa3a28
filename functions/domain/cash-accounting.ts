import { type AccountingRecord, getAccountingRecord, insertAccountingRecord } from '../data/accounting';
import type { DriverCaller } from '../shared/auth-context';
import { ConflictError } from '../shared/errors';
import { quote } from '../shared/quote';
import { rejectFinalized, requireRoute } from './routes';

export type { AccountingRecord };

const MAX_ROUNDS = 5;

/**
 * Adds a cash accounting record to one of the driver's active or started routes. Record ids are unique in
 * the account (3014); sending the same record again (a retried call) returns it without writing.
 */
export async function addAccountingRecord(
  driver: DriverCaller,
  routeId: string,
  input: { id: string; cashReceivedCents: number; cashContainerId: string },
): Promise<AccountingRecord> {
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const route = await requireRoute({ ...driver, routeId });
    const record: AccountingRecord = { ...input, driverId: driver.driverId, createdAt: Date.now() };
    try {
      rejectFinalized(route);
      if (!route.isActive && route.startedTimestamp === undefined) {
        throw new ConflictError(
          'TRANSITION_NOT_ALLOWED',
          `route ${quote(routeId)} is neither active nor started`,
        );
      }
    } catch (refused) {
      // A retry of a record stored before the route was finished still gets its answer, as attempts do.
      const stored = await getAccountingRecord(driver.accountId, routeId, record.id);
      if (stored && sameContent(stored, record)) return stored;
      throw refused;
    }
    const outcome = await insertAccountingRecord(route, record);
    if (outcome === 'created') return record;
    if (outcome === 'id_taken') return sameRecordOrConflict(driver, routeId, record);
  }
  throw new Error(`route '${routeId}' kept changing under ${MAX_ROUNDS} attempts to add a record`);
}

async function sameRecordOrConflict(
  driver: DriverCaller,
  routeId: string,
  record: AccountingRecord,
): Promise<AccountingRecord> {
  const stored = await getAccountingRecord(driver.accountId, routeId, record.id);
  if (stored && sameContent(stored, record)) return stored;
  throw new ConflictError(
    'ACCOUNTING_ID_TAKEN',
    `id: accounting record id ${quote(record.id)} is already used`,
  );
}

const sameContent = (a: AccountingRecord, b: AccountingRecord) =>
  a.driverId === b.driverId &&
  a.cashReceivedCents === b.cashReceivedCents &&
  a.cashContainerId === b.cashContainerId;
