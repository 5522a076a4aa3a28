import { describe, expect, it } from 'vitest';
import * as analytics from '../../functions/api/analytics/index';
import {
  analyticsItem,
  analyticsKeys,
  analyticsOfDate,
  deleteRouteAnalytics,
  listRouteAnalytics,
} from '../../functions/data/analytics';
import { putAll } from '../../functions/data/client';
import { putPendingDownload } from '../../functions/data/download-requests';
import {
  addDays,
  asAcme,
  asCsv,
  asGlobex,
  attemptAnalytics,
  byRouteId,
  CHI_NAME,
  CHICAGO,
  type ColumnDefinitions,
  downloadBody,
  EMPTY,
  exportRoutes,
  FALL_BACK,
  filesPath,
  localIso,
  M,
  MIDNIGHT,
  P,
  type Row,
  request,
  requestDownload,
  routeAnalytics,
  rowsOf,
  runExport,
  S,
  SPLIT_IDS,
  TOKYO,
  TYO_NAME,
  useAnalyticsApi,
  utcDate,
  waitForFiles,
} from '../support/analytics';
import { DESIGN_ATTEMPT_COLUMNS, DESIGN_ROUTE_COLUMNS } from '../support/analytics-columns';
import { expectError, expectSuccess } from '../support/http';

/** Analytics read, exported and dated by each DC's clock (the driven route: analytics-driven-route.test.ts). */
const ax = useAnalyticsApi('analytics', 'service-dates');

// ---------------------------------------------------------------------------------------------------
// Column definitions
// ---------------------------------------------------------------------------------------------------

describe('GET /analytics/column-definitions', () => {
  it('defines every DESIGN §6 column of both types, each with a name and a description', async () => {
    const response = await asAcme('GET', '/analytics/column-definitions');
    const data = expectSuccess(response, analytics.getColumnDefinitions) as {
      route_analysis_column_definitions: ColumnDefinitions;
      attempt_analysis_column_definitions: ColumnDefinitions;
    };
    expect(ax.routeColumns).toEqual(expect.arrayContaining(DESIGN_ROUTE_COLUMNS));
    expect(ax.attemptColumns).toEqual(expect.arrayContaining(DESIGN_ATTEMPT_COLUMNS));
    // The spec names these column ids.
    expect(ax.attemptColumns).toEqual(expect.arrayContaining(['dc_id', 'dc_time_zone', 'waypoint_id']));
    for (const definitions of [
      data.route_analysis_column_definitions,
      data.attempt_analysis_column_definitions,
    ]) {
      for (const [id, definition] of Object.entries(definitions)) {
        expect(Object.keys(definition).sort(), id).toEqual(['column_description', 'column_name']);
        expect(definition.column_name.trim(), id).not.toBe('');
        expect(definition.column_description.trim(), id).not.toBe('');
      }
    }
  });

  it('answers 401 without an API key', async () => {
    expectError(await request('GET', '/analytics/column-definitions'), 401, 1001);
  });
});

// ---------------------------------------------------------------------------------------------------
// Single-route read errors
// ---------------------------------------------------------------------------------------------------

describe('GET /dcs/{dc_id}/routes/{route_id}/analytics/route|attempts errors', () => {
  const kinds = ['route', 'attempts'] as const;

  it('answers 404 for a route that does not exist, or is another DC’s', async () => {
    for (const kind of kinds) {
      expectError(await asAcme('GET', `/dcs/chi/routes/no-such-route/analytics/${kind}`), 404, 3003);
      // mid-tyo-early is a finished route of Acme's DC tyo, not of chi.
      expectError(await asAcme('GET', `/dcs/chi/routes/mid-tyo-early/analytics/${kind}`), 404, 3003);
    }
  });

  it('answers 403 (1002) for a DC outside the key’s account', async () => {
    for (const kind of kinds) {
      expectError(await asGlobex('GET', `/dcs/tyo/routes/mid-tyo-early/analytics/${kind}`), 403, 1002);
      expectError(await asAcme('GET', `/dcs/gx/routes/mid-tyo-early/analytics/${kind}`), 403, 1002);
    }
  });

  it('answers 404 to another account’s key on a DC id both accounts have', async () => {
    for (const kind of kinds) {
      expectError(await asGlobex('GET', `/dcs/chi/routes/mid-chi-early/analytics/${kind}`), 404, 3003);
    }
  });

  it('answers 401 without an API key, and with an unknown one', async () => {
    for (const kind of kinds) {
      expectError(await request('GET', `/dcs/chi/routes/mid-chi-early/analytics/${kind}`), 401, 1001);
      const unknown = await request('GET', `/dcs/chi/routes/mid-chi-early/analytics/${kind}`, {
        key: 'not-a-key',
      });
      expectError(unknown, 401, 1001);
    }
  });

  it('reads a finished route without attempts: an empty attempt list', async () => {
    expect(await attemptAnalytics('chi', 'mid-chi-early')).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Download requests
// ---------------------------------------------------------------------------------------------------

describe('POST /analytics/download-requests validation', () => {
  const post = (body: unknown, key = ax.acme.key) =>
    request('POST', '/analytics/download-requests', { key, body });

  it('answers 6005 for empty dc_ids', async () => {
    expectError(await post(downloadBody({ dc_ids: [] })), 400, 6005);
  });

  it('answers 6001 for dates that are not YYYY-MM-DD calendar dates', async () => {
    for (const bad of ['2026-02-30', '2026-13-01', '26-1-1', '2026-1-01', '2025-02-29']) {
      expectError(await post(downloadBody({ from_date: bad })), 400, 6001);
      expectError(await post(downloadBody({ from_date: '2020-01-01', to_date: bad })), 400, 6001);
    }
  });

  it('answers 6002 when from_date is after to_date', async () => {
    expectError(await post(downloadBody({ from_date: '2026-03-02', to_date: '2026-03-01' })), 400, 6002);
  });

  it('answers 6003 for more than 92 days, counting both ends; 92 days pass', async () => {
    // Jan 31 + Feb 28 + Mar 31 = 90 days, April 1 and 2 make 92.
    expectError(await post(downloadBody({ from_date: '2026-01-01', to_date: '2026-04-03' })), 400, 6003);
    await requestDownload(downloadBody({ from_date: '2026-01-01', to_date: '2026-04-02' }));
    // 2020 is a leap year: Feb has 29 days.
    expectError(await post(downloadBody({ from_date: '2020-01-01', to_date: '2020-04-02' })), 400, 6003);
    await requestDownload(downloadBody({ from_date: '2020-01-01', to_date: '2020-04-01' }));
  });

  it('answers 6004 for unknown or empty analytics_types', async () => {
    for (const types of [[], ['FOO'], ['ROUTE_ANALYTICS', 'FOO'], ['route_analytics']]) {
      expectError(await post(downloadBody({ analytics_types: types })), 400, 6004);
    }
  });

  it('answers 6004 for an unknown type next to both known ones', async () => {
    const types = ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS', 'FOO'];
    expectError(await post(downloadBody({ analytics_types: types })), 400, 6004);
  });

  it('answers 403 (1002) for a DC outside the key’s account', async () => {
    expectError(await post(downloadBody({ dc_ids: ['chi', 'gx'] })), 403, 1002);
    expectError(await post(downloadBody({ dc_ids: ['tyo'] }), ax.globex.key), 403, 1002);
  });

  it('answers 401 without an API key', async () => {
    expectError(await request('POST', '/analytics/download-requests', { body: downloadBody() }), 401, 1001);
  });
});

describe('GET /analytics/download-requests/{txid}/files', () => {
  it('answers 202 with the txid while the files are pending', async () => {
    // A request stored as pending and never queued stays pending.
    const txid = 'dl_seeded_pending';
    await putPendingDownload({
      accountId: ax.acme.accountId,
      txid,
      dcIds: ['chi'],
      fromDate: P,
      toDate: P,
      analyticsTypes: ['ROUTE_ANALYTICS'],
      status: 'PENDING',
      files: [],
      createdAt: Date.now(),
    });
    const response = await asAcme('GET', filesPath(txid));
    expect(expectSuccess(response, analytics.getAnalyticsDownloadFiles, 202)).toEqual({
      download_request_txid: txid,
    });
    expectError(await asGlobex('GET', filesPath(txid)), 400, 6000);
  });

  it('answers 400 (6000) for an unknown txid and for another account’s txid', async () => {
    expectError(await asAcme('GET', filesPath('dl_no_such_request')), 400, 6000);
    expectError(await asAcme('GET', filesPath('dl_✓')), 400, 6000);
    const txid = await requestDownload(downloadBody({ from_date: EMPTY, to_date: EMPTY }));
    await waitForFiles(txid);
    expectError(await asGlobex('GET', filesPath(txid)), 400, 6000);
  });

  it('answers 400 (6000) for a txid no request could have (too long, or with a space)', async () => {
    expectError(await asAcme('GET', filesPath('x'.repeat(129))), 400, 6000);
    expectError(await asAcme('GET', filesPath('dl no such request')), 400, 6000);
  });

  it('answers 401 without an API key', async () => {
    expectError(await request('GET', filesPath('dl_no_such_request')), 401, 1001);
  });

  it('signs the links of reads in a row with one session: one AssumeRole, not one per read', async () => {
    const txid = await requestDownload(
      downloadBody({ from_date: EMPTY, to_date: EMPTY, analytics_types: ['ROUTE_ANALYTICS'] }),
    );
    await waitForFiles(txid);
    const reads = [];
    for (let read = 0; read < 3; read++) reads.push(await waitForFiles(txid));
    // The session that signed each link: the access key id of its X-Amz-Credential.
    const sessions = reads
      .flat()
      .map((file) => new URL(file.download_link).searchParams.get('X-Amz-Credential')?.split('/')[0]);
    expect(sessions.every((session) => session?.startsWith('ASIA'))).toBe(true);
    expect(new Set(sessions).size).toBe(1);
    // Each link still works until that session ends: at least half of it, since it was made.
    const session = ax.api.cloud.proxy.principalOf(sessions[0] as string);
    for (const file of reads.flat()) {
      // Links expire on a whole second (SigV4's dates), the session's end at the latest.
      expect(file.expiration_timestamp).toBeLessThanOrEqual(session?.expiresAt as number);
      expect(file.expiration_timestamp).toBeGreaterThan((session?.expiresAt as number) - 2000);
    }
    expect((session?.expiresAt as number) - Date.now()).toBeGreaterThan(1_800_000);
  });

  it('gives header-only files for a range without routes', async () => {
    const exported = await runExport({
      dc_ids: ['chi', 'tyo'],
      from_date: EMPTY,
      to_date: EMPTY,
      analytics_types: ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS'],
    });
    expect(exported.csv.ROUTE_ANALYTICS).toHaveLength(1);
    expect(exported.csv.ATTEMPT_ANALYTICS).toHaveLength(1);
    for (const file of [...exported.csv.ROUTE_ANALYTICS, ...exported.csv.ATTEMPT_ANALYTICS]) {
      expect(file.rows).toEqual([]);
      expect(file.text.split(/\r?\n/).filter((line) => line !== '')).toEqual([file.header.join(',')]);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// DC-local dates
// ---------------------------------------------------------------------------------------------------

describe('DC-local service dates near midnight (Chicago and Tokyo)', () => {
  it('is a test that a UTC date would fail', () => {
    // 23:50 in Chicago is already the next day in UTC; 00:10 in Tokyo is still the day before.
    expect(utcDate(MIDNIGHT['mid-chi-late'].start)).toBe(M);
    expect(utcDate(MIDNIGHT['mid-tyo-early'].start)).toBe(addDays(M, -1));
  });

  it('dates each route by its DC’s clock in the single-route read', async () => {
    for (const [routeId, { dc, date, start }] of Object.entries(MIDNIGHT)) {
      const record = await routeAnalytics(dc, routeId);
      expect(record).toMatchObject({
        dc_id: dc,
        dc_name: dc === 'chi' ? CHI_NAME : TYO_NAME,
        dc_time_zone: dc === 'chi' ? CHICAGO : TOKYO,
        route_id: routeId,
        planned_route_start_date: date,
        planned_route_start_timestamp: localIso(start, dc === 'chi' ? CHICAGO : TOKYO),
        planned_route_start_epoch_ms: start,
        driver_id: null,
        driver_name: null,
        actual_route_departure_time: null,
        total_journey_seconds: null,
      });
    }
  });

  it('exports for one local date exactly the routes that started on it in their DC', async () => {
    for (const date of [M, addDays(M, -1)]) {
      const exported = await exportRoutes(['chi', 'tyo'], date);
      const rows = rowsOf(exported.csv.ROUTE_ANALYTICS);
      const expected = Object.entries(MIDNIGHT).filter(([, route]) => route.date === date);
      expect(rows.map((row) => row.route_id).sort(), date).toEqual(expected.map(([id]) => id).sort());
      for (const [routeId, { dc }] of expected) {
        const row = rows.find((candidate) => candidate.route_id === routeId);
        expect(row).toEqual(asCsv(await routeAnalytics(dc, routeId)));
      }
    }
  });

  it('exports nothing of a DC that was not asked for', async () => {
    const exported = await runExport({
      dc_ids: ['tyo'],
      from_date: addDays(M, -1),
      to_date: M,
      analytics_types: ['ROUTE_ANALYTICS'],
    });
    const ids = rowsOf(exported.csv.ROUTE_ANALYTICS).map((row) => row.route_id);
    expect(ids.sort()).toEqual(['mid-tyo-early', 'mid-tyo-late']);
  });
});

describe('DC-local times at a DST change (Chicago falling back)', () => {
  it('exports the two passes of a repeated hour with their own offsets, beside the epoch ms', async () => {
    const rows = rowsOf((await exportRoutes(['chi'], FALL_BACK.date)).csv.ROUTE_ANALYTICS).sort(byRouteId);
    expect(
      rows.map((row) => [row.route_id, row.planned_route_start_timestamp, row.planned_route_start_epoch_ms]),
    ).toEqual([
      ['dst-cdt', '2025-11-02T01:30:00-05:00', String(FALL_BACK.starts['dst-cdt'])],
      ['dst-cst', '2025-11-02T01:30:00-06:00', String(FALL_BACK.starts['dst-cst'])],
    ]);
    for (const row of rows) {
      // Each local time names the instant of the epoch ms beside it, to the second.
      expect(Date.parse(row.planned_route_start_timestamp ?? '')).toBe(
        Number(row.planned_route_start_epoch_ms),
      );
      expect(Date.parse(row.actual_route_arrival_time ?? '')).toBe(
        Math.floor(Number(row.actual_route_arrival_epoch_ms) / 1000) * 1000,
      );
      // Routes without items: no currency to name.
      expect(row).toMatchObject({ planned_cash_cents: '0', planned_cash_currency: '' });
    }
  });

  it('writes a name a spreadsheet would run as a formula behind a quote mark', async () => {
    const rows = rowsOf((await exportRoutes(['chi'], FALL_BACK.date)).csv.ROUTE_ANALYTICS).sort(byRouteId);
    expect(rows.map((row) => row.route_name)).toEqual([
      `'${FALL_BACK.names['dst-cdt']}`,
      `'${FALL_BACK.names['dst-cst']}`,
    ]);
    // The single-route read answers the name as imported: the quote mark belongs to the CSV only.
    expect((await routeAnalytics('chi', 'dst-cst')).route_name).toBe(FALL_BACK.names['dst-cst']);
  });
});

// ---------------------------------------------------------------------------------------------------
// Splitting, missing analytics, deletion
// ---------------------------------------------------------------------------------------------------

describe('an export bigger than one file', () => {
  let reads: Row[];

  it('computes analytics a finished route is missing, on the read and on the export', async () => {
    // Storage detail (DESIGN §6: stored at the finish, computed on demand when missing).
    const place = (routeId: string) => ({ accountId: ax.acme.accountId, dcId: 'chi', localDate: S, routeId });
    const stored = await listRouteAnalytics(place('split-1'), 'ROUTE_ANALYTICS');
    expect(stored).toHaveLength(1);
    await deleteRouteAnalytics(place('split-1'));
    await deleteRouteAnalytics(place('split-2'));
    expect(await listRouteAnalytics(place('split-1'), 'ROUTE_ANALYTICS')).toEqual([]);
    expect(await routeAnalytics('chi', 'split-1')).toEqual(stored[0]);
    // split-2 stays missing until the export below.
    expect(await listRouteAnalytics(place('split-2'), 'ROUTE_ANALYTICS')).toEqual([]);
  });

  it('splits seven routes into files of at most three rows that together hold every route', async () => {
    const exported = await exportRoutes(['chi'], S);
    const counts = exported.csv.ROUTE_ANALYTICS.map((file) => file.rows.length);
    expect([...counts].sort()).toEqual([1, 3, 3]);
    reads = await Promise.all(SPLIT_IDS.map((id) => routeAnalytics('chi', id)));
    const rows = rowsOf(exported.csv.ROUTE_ANALYTICS).sort(byRouteId);
    expect(rows).toEqual(reads.map(asCsv).sort(byRouteId));
  });

  it('leaves a deleted finished route out of later exports', async () => {
    expect(reads, 'the routes were not read').toBeDefined();
    const deleted = await asAcme('DELETE', '/dcs/chi/routes/split-7');
    expect(deleted.status, deleted.text).toBe(200);
    expectError(await asAcme('GET', '/dcs/chi/routes/split-7/analytics/route'), 404, 3003);
    const exported = await exportRoutes(['chi'], S);
    expect(exported.csv.ROUTE_ANALYTICS.map((file) => file.rows.length)).toEqual([3, 3]);
    const rows = rowsOf(exported.csv.ROUTE_ANALYTICS).sort(byRouteId);
    expect(rows).toEqual(reads.filter((row) => row.route_id !== 'split-7').map(asCsv));
  });
});

describe('a date of more analytics records than one page', () => {
  it("yields the asked routes' records once each, in key order, over two pages (the second read ahead)", async () => {
    const date = { accountId: 'acct-pages', dcId: 'dc-pages', localDate: '2024-05-06' };
    const rowOf = (routeId: string, sequence: number) => ({ route_id: routeId, sequence });
    const records = ['r-a', 'r-b', 'r-c'].flatMap((routeId) =>
      Array.from({ length: 400 }, (_, sequence) => ({ routeId, sequence })),
    );
    await putAll(
      records.map(({ routeId, sequence }) =>
        analyticsItem(
          analyticsKeys.attempt({ ...date, routeId }, sequence),
          'ATTEMPT_ANALYTICS',
          routeId,
          rowOf(routeId, sequence),
        ),
      ),
    );
    const pages: unknown[][] = [];
    const asked = new Set(['r-a', 'r-c']);
    for await (const rows of analyticsOfDate(
      date.accountId,
      date.dcId,
      date.localDate,
      'ATTEMPT_ANALYTICS',
      asked,
    ))
      pages.push(rows);
    // Pages of 1,000 records: r-a's 400, r-b's and 200 of r-c's, then r-c's other 200.
    expect(pages.map((rows) => rows.length)).toEqual([600, 200]);
    expect(pages.flat()).toEqual(
      records
        .filter(({ routeId }) => asked.has(routeId))
        .map(({ routeId, sequence }) => rowOf(routeId, sequence)),
    );
  });
});
