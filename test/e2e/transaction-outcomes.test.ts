import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAccountingRecord } from '../../functions/data/accounting';
import { insertDc } from '../../functions/data/accounts';
import { createApiKey } from '../../functions/data/api-keys';
import { type Attempt, insertAttempt } from '../../functions/data/attempts';
import { tableName, writeTransactionParts } from '../../functions/data/client';
import { getRouteHeader, type RouteHeader } from '../../functions/data/routes';
import { createTestAccount } from '../support/accounts';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, importRoute } from '../support/routes';

/**
 * The entity modules' writes name their outcomes (a condition that failed, by what it means), so that the use
 * cases never read a cancelled transaction's reasons by position. These tests write against the table itself.
 */

let api: TestApi;
let acme: { accountId: string; key: string };

beforeAll(async () => {
  api = await startTestApi('transaction-outcomes');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
});

afterAll(() => api?.close());

const put = (sk: string) => ({
  Put: {
    TableName: tableName(),
    Item: { pk: 'OUTCOME_TEST', sk },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

describe('writeTransactionParts', () => {
  it('names the first part, in order, whose condition failed, and throws a failure of a part without a name', async () => {
    const parts = (first: string, second: [string, string], third: string) => [
      { items: [put(first)], refusedAs: 'first_taken' as const },
      { items: second.map(put), refusedAs: 'second_taken' as const },
      { items: [put(third)] },
    ];
    expect(await writeTransactionParts(parts('a', ['b1', 'b2'], 'c'))).toBe('written');
    expect(await writeTransactionParts(parts('a', ['b1', 'd2'], 'd'))).toBe('first_taken');
    // Only the second part's second item failed: the part is named all the same.
    expect(await writeTransactionParts(parts('e', ['f1', 'b2'], 'f'))).toBe('second_taken');
    await expect(writeTransactionParts(parts('g', ['h1', 'h2'], 'c'))).rejects.toMatchObject({
      name: 'TransactionCanceledException',
    });
    // Nothing of a refused transaction was written: its other items are free still.
    expect(await writeTransactionParts(parts('e', ['f1', 'i2'], 'i'))).toBe('written');
    expect(await writeTransactionParts(parts('g', ['h1', 'h2'], 'j'))).toBe('written');
  });
});

describe('the writes of an account', () => {
  it("add a DC: no_account for an account that does not exist, dc_taken for one of the account's DC ids", async () => {
    const dc = { dcId: 'dc-2', name: 'Second', timeZone: 'UTC' };
    expect(await insertDc({ ...dc, accountId: 'acc_missing' })).toBe('no_account');
    expect(await insertDc({ ...dc, accountId: acme.accountId })).toBe('created');
    expect(await insertDc({ ...dc, accountId: acme.accountId })).toBe('dc_taken');
  });

  it('add an API key: no_account for an account that does not exist, key_taken for a key registered already', async () => {
    const key = { accountId: acme.accountId, keyId: 'key_outcomes', keyHash: 'f'.repeat(64), createdAt: 1 };
    expect(await createApiKey({ ...key, accountId: 'acc_missing' })).toBe('no_account');
    expect(await createApiKey(key)).toBe('created');
    expect(await createApiKey({ ...key, keyId: 'key_outcomes_2' })).toBe('key_taken');
  });
});

describe('the writes of a driver on a route', () => {
  let route: RouteHeader;
  /** The route as read before its latest change. */
  const stale = () => ({ ...route, version: route.version - 1 });

  beforeAll(async () => {
    await importRoute(api.url, acme.key, 'dc-1', exampleRoute('outcomes-1', { waypoints: 2 }));
    route = (await getRouteHeader(acme.accountId, 'outcomes-1')) as RouteHeader;
  });

  it('adds an accounting record once: id_taken for its id again, route_changed for a route read before a change', async () => {
    const record = {
      id: 'acct-1',
      driverId: 'd-1',
      cashReceivedCents: 100,
      cashContainerId: 'box',
      createdAt: 1,
    };
    expect(await insertAccountingRecord(stale(), record)).toBe('route_changed');
    expect(await insertAccountingRecord(route, record)).toBe('created');
    expect(await insertAccountingRecord(route, record)).toBe('id_taken');
    expect(await insertAccountingRecord(stale(), record)).toBe('id_taken');
  });

  it('records an attempt once: id_taken for its id again, route_changed for a route read before a change, proof_taken for a proof it may not name', async () => {
    const attempt: Attempt = {
      id: 'att-1',
      waypointId: 'outcomes-1-wp-0',
      sequence: 0,
      timestamp: 1,
      status: 'SUCCESSFUL',
      items: [],
      proofIds: [],
      driverId: 'd-1',
      recordedAt: 1,
    };
    const event: Parameters<typeof insertAttempt>[2] = {
      accountId: acme.accountId,
      dcId: 'dc-1',
      routeId: 'outcomes-1',
      type: 'WAYPOINT_STATUS_CHANGED',
      details: {
        waypoint_id: attempt.waypointId,
        status: 'SUCCESSFUL',
        attempt_id: attempt.id,
        timestamp: 1,
        proof_ids: [],
        signer_name: null,
      },
      occurredAt: 1,
    };
    expect(await insertAttempt(stale(), attempt, event)).toBe('route_changed');
    expect(await insertAttempt(route, { ...attempt, proofIds: ['no-such-proof'] }, event)).toBe(
      'proof_taken',
    );
    expect(await insertAttempt(route, attempt, event)).toBe('recorded');
    expect(await insertAttempt(route, attempt, event)).toBe('id_taken');
  });
});
