import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAccountingRecord } from '../../functions/data/accounting';
import { insertDc } from '../../functions/data/accounts';
import { createApiKey } from '../../functions/data/api-keys';
import { type Attempt, insertAttempt } from '../../functions/data/attempts';
import { ClaimConflict, findHeldClaims, releaseClaims, takeClaims } from '../../functions/data/claims';
import { db, tableName, writeTransactionParts } from '../../functions/data/client';
import { insertDriver } from '../../functions/data/drivers';
import { endImport, endRouteImport } from '../../functions/data/import-endings';
import { getImport, type ImportRecord, putPendingImport } from '../../functions/data/imports';
import { getRouteEtas, type RouteEtas, replaceRouteEtas } from '../../functions/data/route-etas';
import { lastEventSequence, type SequencedEvent } from '../../functions/data/route-event-sequences';
import { writeRouteChange } from '../../functions/data/route-header-writes';
import { getWaypointRow } from '../../functions/data/route-rows';
import { getRouteHeader, type RouteHeader, routeKeys } from '../../functions/data/routes';
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

describe('takeClaims', () => {
  const item = (id: string) => ({ kind: 'ITEM' as const, id: `claims-${id}` });
  const holders = async (ids: string[]) =>
    (await findHeldClaims(acme.accountId, ids.map(item))).map((held) => [held.id, held.txid]);

  it('takes again what its import holds, names the first id another import holds, and keeps what it took until released', async () => {
    await takeClaims(acme.accountId, ['a', 'b'].map(item), 'imp_first', 'route-first');
    // A delivery of the same import again: its own claims are taken again, a new one beside them.
    await takeClaims(acme.accountId, ['a', 'b', 'c'].map(item), 'imp_first', 'route-first');
    const ids = ['d', 'b', 'e', 'a'];
    const conflict = await takeClaims(acme.accountId, ids.map(item), 'imp_second', 'route-second').catch(
      (thrown: unknown) => thrown,
    );
    expect(conflict).toBeInstanceOf(ClaimConflict);
    expect((conflict as ClaimConflict).claim).toEqual(item('b'));
    // Not a transaction: the free ids of the batch were taken, and stay the second import's until it lets go.
    expect(await holders(['a', 'b', 'c', 'd', 'e'])).toEqual([
      ['claims-a', 'imp_first'],
      ['claims-b', 'imp_first'],
      ['claims-c', 'imp_first'],
      ['claims-d', 'imp_second'],
      ['claims-e', 'imp_second'],
    ]);
    await releaseClaims(acme.accountId, ids.map(item), 'imp_second');
    expect(await holders(['a', 'b', 'c', 'd', 'e'])).toEqual([
      ['claims-a', 'imp_first'],
      ['claims-b', 'imp_first'],
      ['claims-c', 'imp_first'],
    ]);
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
    const { attempt, event } = successAtFirstStop('outcomes-1', 'att-1', 'd-1');
    expect(await insertAttempt(stale(), attempt, event)).toBe('route_changed');
    expect(await insertAttempt(route, { ...attempt, proofIds: ['no-such-proof'] }, event)).toBe(
      'proof_taken',
    );
    expect(await insertAttempt(route, attempt, event)).toBe('recorded');
    expect(await insertAttempt(route, attempt, event)).toBe('id_taken');
  });
});

/** A SUCCESSFUL attempt at the route's first stop, and the WAYPOINT_STATUS_CHANGED event it writes. */
function successAtFirstStop(routeId: string, id: string, driverId: string) {
  const attempt: Attempt = {
    id,
    waypointId: `${routeId}-wp-0`,
    sequence: 0,
    timestamp: 1,
    status: 'SUCCESSFUL',
    items: [],
    proofIds: [],
    driverId,
    recordedAt: 1,
  };
  const event: SequencedEvent = {
    accountId: acme.accountId,
    dcId: 'dc-1',
    routeId,
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
  return { attempt, event };
}

/**
 * Makes the next take of the route's event sequence fail its condition, as another event taking the number
 * between the read and the write would: the sequence item is there without a number, so the read gives 0 and
 * the condition that no item exists fails. Returns the number to put back.
 */
async function raceEventSequence(accountId: string, routeId: string): Promise<() => Promise<void>> {
  const last = await lastEventSequence(accountId, routeId);
  const key = routeKeys.row(accountId, routeId, 'EVENT_SEQUENCE');
  const put = (item: Record<string, unknown>) =>
    db.send(new PutCommand({ TableName: tableName(), Item: { ...key, entity: 'EVENT_SEQUENCE', ...item } }));
  await put({});
  return async () => {
    await put({ last_sequence: last });
  };
}

describe('the writes of a route change', () => {
  let route: RouteHeader;
  const bumped = () => ({ ...route, version: route.version + 1 });
  const updated = (): SequencedEvent => ({
    accountId: acme.accountId,
    dcId: 'dc-1',
    routeId: 'outcomes-2',
    type: 'ROUTE_UPDATED',
    details: {
      version: route.version + 1,
      changes: {
        waypoints: { added: [], removed: ['outcomes-2-wp-1'], changed: [] },
        invoices: { added: [], removed: [], changed: [] },
        items: { added: [], removed: [], changed: [] },
      },
    },
    occurredAt: 1,
  });
  const cancelled = (sequence: number) => ({
    sequence,
    waypointId: `outcomes-2-wp-${sequence}`,
    rowKeys: [],
    freed: [],
  });

  beforeAll(async () => {
    await importRoute(api.url, acme.key, 'dc-1', exampleRoute('outcomes-2', { waypoints: 2 }));
    route = (await getRouteHeader(acme.accountId, 'outcomes-2')) as RouteHeader;
    await insertDriver({
      accountId: acme.accountId,
      dcId: 'dc-1',
      driverId: 'outcomes-driver',
      name: 'Driver',
      loginToken: 'outcomes-driver-token',
      startedRouteIds: [],
      assignedRouteIds: [],
      routesVersion: 0,
      recentVisits: [],
      visitsVersion: 0,
      createdAt: 1,
      updatedAt: 1,
    });
  });

  it('replaces the header with what it writes beside it, or says why not: route_changed, event_raced, driver_gone (naming the driver), waypoint_visited', async () => {
    expect(await writeRouteChange(bumped(), route.version - 1, { event: updated() })).toEqual({
      outcome: 'route_changed',
    });
    const putBack = await raceEventSequence(acme.accountId, 'outcomes-2');
    expect(await writeRouteChange(bumped(), route.version, { event: updated() })).toEqual({
      outcome: 'event_raced',
    });
    await putBack();
    const driverSets = [
      { driverId: 'outcomes-driver', assigned: 'add' as const },
      { driverId: 'no-such-driver', assigned: 'add' as const },
    ];
    expect(await writeRouteChange(bumped(), route.version, { driverSets, event: updated() })).toEqual({
      outcome: 'driver_gone',
      driverId: 'no-such-driver',
    });
    // A visit marks its waypoint visited; a cancellation read before it must not drop it.
    const { attempt, event } = successAtFirstStop('outcomes-2', 'att-2', 'outcomes-driver');
    expect(await insertAttempt(route, attempt, event)).toBe('recorded');
    expect(
      await writeRouteChange(bumped(), route.version, { cancelledWaypoint: cancelled(0), event: updated() }),
    ).toEqual({ outcome: 'waypoint_visited' });
    // Nothing of the refused changes was written.
    expect(await getRouteHeader(acme.accountId, 'outcomes-2')).toEqual(route);
    expect(await getWaypointRow(acme.accountId, 'outcomes-2', 1)).toBeDefined();

    const next = bumped();
    expect(
      await writeRouteChange(next, route.version, { cancelledWaypoint: cancelled(1), event: updated() }),
    ).toEqual({ outcome: 'written' });
    expect(await getRouteHeader(acme.accountId, 'outcomes-2')).toEqual(next);
    expect(await getWaypointRow(acme.accountId, 'outcomes-2', 1)).toBeUndefined();
    route = next;
  });

  it('replaces the ETAs, or says why not: etas_changed, route_changed, event_raced', async () => {
    const stored = (await getRouteEtas(acme.accountId, 'outcomes-2')) as RouteEtas;
    const next = { ...stored, computedAt: 2, version: stored.version + 1 };
    const changed: SequencedEvent = {
      accountId: acme.accountId,
      dcId: 'dc-1',
      routeId: 'outcomes-2',
      type: 'ROUTE_ETAS_CHANGED',
      details: { etas: [] },
      occurredAt: 2,
    };
    expect(await replaceRouteEtas(route, next, stored.version - 1, [changed])).toBe('etas_changed');
    expect(await replaceRouteEtas({ ...route, version: route.version - 1 }, next, stored.version)).toBe(
      'route_changed',
    );
    const putBack = await raceEventSequence(acme.accountId, 'outcomes-2');
    expect(await replaceRouteEtas(route, next, stored.version, [changed])).toBe('event_raced');
    await putBack();
    expect(await getRouteEtas(acme.accountId, 'outcomes-2')).toEqual(stored);
    expect(await replaceRouteEtas(route, next, stored.version, [changed])).toBe('written');
    expect(await getRouteEtas(acme.accountId, 'outcomes-2')).toEqual(next);
  });
});

describe('the ends of an import', () => {
  const pending = async (txid: string, routeId: string): Promise<ImportRecord> => {
    const record: ImportRecord = {
      accountId: acme.accountId,
      dcId: 'dc-1',
      txid,
      routeId,
      status: 'PENDING',
      payloadKey: `outcomes/${txid}.json`,
      createdAt: 1,
      deadline: Date.now() + 60_000,
    };
    await putPendingImport(record);
    return record;
  };
  const failure = { code: 1000, message: 'failed' };
  const failed = (txid: string, routeId: string) => ({
    accountId: acme.accountId,
    dcId: 'dc-1',
    routeId,
    type: 'ROUTE_IMPORT_FAILED' as const,
    details: { txid, error: failure },
    occurredAt: 1,
  });

  it('ends a route import once: driver_gone for a route whose driver does not exist, already_ended the second time', async () => {
    const record = await pending('imp_outcomes_1', 'outcomes-3');
    const header = {
      ...((await getRouteHeader(acme.accountId, 'outcomes-1')) as RouteHeader),
      routeId: 'outcomes-3',
      assignedDriverId: 'no-such-driver',
      importTxid: record.txid,
      version: 1,
    };
    const created = {
      accountId: acme.accountId,
      dcId: 'dc-1',
      routeId: 'outcomes-3',
      type: 'ROUTE_CREATED' as const,
      details: {
        route: {
          id: 'outcomes-3',
          name: header.name,
          start_time: header.startTime,
          driver_id: 'no-such-driver',
          waypoint_count: header.waypointIds.length,
          is_active: header.isActive,
        },
      },
      occurredAt: 1,
    };
    expect(await endRouteImport(record, 2, { route: header }, created)).toBe('driver_gone');
    expect(await getRouteHeader(acme.accountId, 'outcomes-3')).toBeUndefined();
    expect(await endRouteImport(record, 2, { error: failure }, failed(record.txid, 'outcomes-3'))).toBe(
      'ended',
    );
    expect(await getImport(acme.accountId, record.txid)).toMatchObject({ status: 'FAILED', error: failure });
    expect(
      await endRouteImport(record, 3, { route: { ...header, assignedDriverId: undefined } }, created),
    ).toBe('already_ended');
    expect(await getRouteHeader(acme.accountId, 'outcomes-3')).toBeUndefined();
  });

  it('throws the refusal of a new route whose id has a header (one still being deleted): the run is retried', async () => {
    const record = await pending('imp_outcomes_2', 'outcomes-1');
    const header = (await getRouteHeader(acme.accountId, 'outcomes-1')) as RouteHeader;
    await expect(
      endRouteImport(
        record,
        2,
        { route: { ...header, importTxid: record.txid } },
        failed(record.txid, 'outcomes-1'),
      ),
    ).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(await getImport(acme.accountId, record.txid)).toMatchObject({ status: 'PENDING' });
  });

  it('ends a revision once: event_raced when another event took the sequence, already_ended the second time', async () => {
    const record = await pending('rev_outcomes_1', 'outcomes-1');
    const event = { event: failed(record.txid, 'outcomes-1'), takesSequence: true };
    const putBack = await raceEventSequence(acme.accountId, 'outcomes-1');
    expect(await endImport(record, 2, failure, event)).toBe('event_raced');
    await putBack();
    expect(await getImport(acme.accountId, record.txid)).toMatchObject({ status: 'PENDING' });
    expect(await endImport(record, 2, failure, event)).toBe('ended');
    expect(await endImport(record, 3, failure, event)).toBe('already_ended');
    expect(await endImport(record, 3, undefined)).toBe('already_ended');
  });
});
