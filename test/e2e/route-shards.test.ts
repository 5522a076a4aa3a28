import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { findHeldClaims } from '../../functions/data/claims';
import { type Item, queryItems } from '../../functions/data/client';
import { ROW_SHARD_WRITE_UNITS, rowShardsOf, shardPartitions } from '../../functions/data/route-shards';
import { getRouteHeader, type RouteHeader } from '../../functions/data/routes';
import { claimsOf } from '../../functions/domain/route-ids';
import { MAX_BODY_BYTES } from '../../functions/shared/limits';
import { createTestAccount } from '../support/accounts';
import { call, expectError, expectSuccess, joinPages, readAllPages } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, uploadAndImport, waitForImport } from '../support/routes';

/**
 * A route whose invoice and item rows pass two shards' write units (ROW_SHARD_WRITE_UNITS each): its rows
 * spread over three partitions, and every read, change and deletion of them covers each. Its invoices carry
 * 50 name attributes of about 500 characters (about 25 write units a row), so 640 of them are enough: few
 * rows, quick to import, but a body over the POST's limit (an upload).
 */
const SHAPE = { waypoints: 32, invoicesPerWaypoint: 20, itemsPerInvoice: 2 };
/** Quiet, the import takes seconds; a machine busy with other test files may take many times that. */
const PHASE_DEADLINE_MS = 180_000;

let api: TestApi;
let acme: { accountId: string; key: string };
const asAcme = (pathAndQuery: string, method = 'GET', body?: unknown) =>
  call(api.url, method, pathAndQuery, { key: acme.key, body });

beforeAll(async () => {
  api = await startTestApi('route-shards');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
});

afterAll(() => api?.close());

type Body = ReturnType<typeof exampleRoute>;
type ReadInvoice = { id: string; invoice_name_attributes: { value: string }[]; items: { id: string }[] };

function heavyRoute(id: string): Body {
  const route = exampleRoute(id, { ...SHAPE, leanItems: true });
  for (const waypoint of route.waypoints)
    for (const invoice of waypoint.invoices)
      invoice.invoice_name_attributes = Array.from({ length: 50 }, (_, a) => ({
        key: `attribute-${a}`,
        value: `${invoice.id}/${a} `.padEnd(480, 'x'),
      }));
  return route;
}

/** Every item of each of the route's partitions (as its header records them), read as the operator. */
async function shardItems(header: RouteHeader): Promise<Item[][]> {
  return Promise.all(
    shardPartitions(rowShardsOf(header)).map(async (pk) => {
      const { items } = await queryItems({
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      });
      return items;
    }),
  );
}

const invoiceRowsIn = (items: Item[]) => items.filter((item) => (item.sk as string).startsWith('I#'));

/** Each `I#` row sits in the shard whose range holds its sort key. */
function expectRowsInTheirShards(header: RouteHeader, shards: Item[][]) {
  const starts = header.rowShardStarts ?? [];
  shards.forEach((items, shard) => {
    for (const { sk } of invoiceRowsIn(items)) {
      if (shard > 0) expect(sk >= (starts[shard - 1] as string), sk).toBe(true);
      if (shard < starts.length) expect(sk < (starts[shard] as string), sk).toBe(true);
    }
  });
}

const invoiceIdsOf = (route: Body) =>
  route.waypoints.flatMap((waypoint) => waypoint.invoices.map((invoice) => invoice.id));
const itemIdsOf = (route: Body) =>
  route.waypoints.flatMap((waypoint) =>
    waypoint.invoices.flatMap((invoice) => invoice.items.map((i) => i.id)),
  );

async function readInvoices(routeId: string, query: Record<string, string> = {}) {
  const pages = await readAllPages(
    asAcme,
    `/dcs/dc-1/routes/${routeId}/invoices`,
    routes.getInvoiceStatus,
    query,
  );
  return { pages, invoices: joinPages<ReadInvoice>(pages, 'invoices', 'items') };
}

/** The partition key a page's `next_token` continues in. */
const tokenPartition = (token: string) => JSON.parse(Buffer.from(token, 'base64url').toString('utf8')).pk;

async function waitForDeletion(routeId: string) {
  const deadline = Date.now() + PHASE_DEADLINE_MS;
  while (await getRouteHeader(acme.accountId, routeId)) {
    expect(Date.now(), 'the deletion worker has not finished').toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

// Each step may wait a phase out (import, revision, deletion): the tests' time is the phase's deadline and more.
describe('a route whose rows span three shards', { timeout: PHASE_DEADLINE_MS + 30_000 }, () => {
  const route = heavyRoute('sharded');
  let header: RouteHeader;

  it('imports into three partitions: each holds rows of its own range, none more write units than a shard takes', async () => {
    const body = JSON.stringify({ route });
    expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_BODY_BYTES);
    const imported = await uploadAndImport(api.url, acme.key, 'dc-1', body, PHASE_DEADLINE_MS);
    expect(expectSuccess(imported, routes.getImportStatus)).toMatchObject({ status: 'SUCCEEDED' });

    header = (await getRouteHeader(acme.accountId, route.id)) as RouteHeader;
    expect(header.rowShardStarts).toHaveLength(2);
    const shards = await shardItems(header);
    expect(shards.map((items) => invoiceRowsIn(items).length).every((rows) => rows > 0)).toBe(true);
    // Shard 0, the route's partition, holds the header and waypoints; the others hold invoice and item rows only.
    expect(shards[0]?.filter((item) => item.entity === 'WAYPOINT')).toHaveLength(SHAPE.waypoints);
    for (const items of shards.slice(1)) expect(items).toEqual(invoiceRowsIn(items));
    expectRowsInTheirShards(header, shards);
    const invoiceRows = shards.flatMap(invoiceRowsIn);
    expect(invoiceRows).toHaveLength(invoiceIdsOf(route).length + itemIdsOf(route).length);
    // Items up to 1 KB and invoices of about 25 KB: the rows' sizes bound each shard's write units.
    for (const items of shards) {
      const bytes = invoiceRowsIn(items).reduce((total, item) => total + JSON.stringify(item).length, 0);
      expect(bytes).toBeLessThanOrEqual(ROW_SHARD_WRITE_UNITS * 1024);
    }
  });

  it('reads every invoice and item once, in import order, whole and page by page across the shards', async () => {
    const whole = await readInvoices(route.id);
    // The byte budget ends pages early (25 KB invoices): the reads cross both shard boundaries inside pages.
    expect(whole.pages.length).toBeGreaterThan(3);
    expect(whole.invoices.map((invoice) => invoice.id)).toEqual(invoiceIdsOf(route));
    expect(whole.invoices.flatMap((invoice) => invoice.items.map((item) => item.id))).toEqual(
      itemIdsOf(route),
    );
    expect(whole.invoices.at(-1)?.invoice_name_attributes[49]?.value).toBe(
      route.waypoints.at(-1)?.invoices.at(-1)?.invoice_name_attributes[49]?.value,
    );

    const paged = await readInvoices(route.id, { limit: '25' });
    expect(paged.invoices.map((invoice) => invoice.id)).toEqual(invoiceIdsOf(route));
    expect(paged.invoices.flatMap((invoice) => invoice.items.map((item) => item.id))).toEqual(
      itemIdsOf(route),
    );
    // Its tokens continue in each of the three partitions.
    const [, ...shardKeys] = shardPartitions(rowShardsOf(header));
    const tokenPartitions = new Set(
      paged.pages
        .map((page) => page.next_token as string | undefined)
        .filter(Boolean)
        .map((token) => tokenPartition(token as string)),
    );
    for (const pk of shardKeys) expect(tokenPartitions.has(pk)).toBe(true);
  });

  it("refuses a next_token that names another route's shard (1006)", async () => {
    const forged = Buffer.from(
      JSON.stringify({ pk: `ROUTE_ROWS#${acme.accountId}/other-route#1`, sk: 'I#00000#0000' }),
    ).toString('base64url');
    const message = expectError(
      await asAcme(`/dcs/dc-1/routes/${route.id}/invoices?next_token=${forged}`),
      400,
      1006,
    );
    expect(message).toContain('next_token');
  });

  it("answers an invoice's evidence from the last shard", async () => {
    const last = route.waypoints.at(-1)?.invoices.at(-1);
    const { evidence } = expectSuccess(
      await asAcme(`/dcs/dc-1/routes/${route.id}/invoices/${last?.id}/evidence`),
      routes.getInvoiceEvidence,
    ) as { evidence: { invoice: { id: string; items: { id: string }[] } } };
    expect(evidence.invoice.id).toBe(last?.id);
    expect(evidence.invoice.items.map((item) => item.id)).toEqual(last?.items.map((item) => item.id));
  });

  let cancelled: Body['waypoints'][number];
  it('cancels the waypoint at the first shard boundary: its rows leave both partitions, its ids are freed', async () => {
    const boundary = header.rowShardStarts?.[0] as string;
    const sequence = Number(boundary.split('#')[1]);
    cancelled = route.waypoints[sequence] as Body['waypoints'][number];
    expectSuccess(
      await asAcme(`/dcs/dc-1/routes/${route.id}/waypoints/${cancelled.id}`, 'DELETE'),
      routes.cancelWaypoint,
    );
    const prefix = `I#${String(sequence).padStart(5, '0')}#`;
    const rows = (await shardItems(header)).flat().filter((item) => (item.sk as string).startsWith(prefix));
    expect(rows).toEqual([]);
    const { invoices } = await readInvoices(route.id);
    const kept = { ...route, waypoints: route.waypoints.filter((waypoint) => waypoint !== cancelled) };
    expect(invoices.map((invoice) => invoice.id)).toEqual(invoiceIdsOf(kept));
    const freed = claimsOf({ ...route, waypoints: [cancelled] }).filter((claim) => claim.kind !== 'ROUTE');
    expect(await findHeldClaims(acme.accountId, freed)).toEqual([]);
  });

  let revised: Body;
  it('revises it: rewritten rows stay in their shards, an added waypoint joins the last one', async () => {
    const added = exampleRoute('sharded-added', { waypoints: 1, invoicesPerWaypoint: 1, itemsPerInvoice: 2 })
      .waypoints[0] as Body['waypoints'][number];
    // Every invoice lighter (the body fits a PUT): each waypoint rewritten in place.
    revised = {
      ...route,
      waypoints: [
        ...route.waypoints
          .filter((waypoint) => waypoint !== cancelled)
          .map((waypoint) => ({
            ...waypoint,
            invoices: waypoint.invoices.map((invoice) => ({
              ...invoice,
              invoice_name_attributes: [{ key: 'revised', value: invoice.id }],
            })),
          })),
        added,
      ],
    };
    const accepted = await asAcme(`/dcs/dc-1/routes/${route.id}/revision`, 'PUT', { route: revised });
    const { txid } = expectSuccess(accepted, routes.reviseRoute, 202) as { txid: string };
    const done = await waitForImport(api.url, acme.key, 'dc-1', txid, PHASE_DEADLINE_MS);
    expect(expectSuccess(done, routes.getImportStatus)).toMatchObject({ status: 'SUCCEEDED' });

    const now = (await getRouteHeader(acme.accountId, route.id)) as RouteHeader;
    expect(now.rowShardStarts).toEqual(header.rowShardStarts);
    const shards = await shardItems(now);
    expectRowsInTheirShards(now, shards);
    const addedInvoice = added.invoices[0]?.id;
    expect(shards.at(-1)?.some((item) => item.invoice_id === addedInvoice && item.entity === 'INVOICE')).toBe(
      true,
    );
    const { invoices } = await readInvoices(route.id, { limit: '25' });
    expect(invoices.map((invoice) => invoice.id)).toEqual(invoiceIdsOf(revised));
    expect(invoices.flatMap((invoice) => invoice.items.map((item) => item.id))).toEqual(itemIdsOf(revised));
    const rewritten = invoices.filter((invoice) => invoice.id !== addedInvoice);
    expect(rewritten.every((invoice) => invoice.invoice_name_attributes[0]?.value === invoice.id)).toBe(true);
  });

  it('deletes it: no row is left in any of its partitions, and every id is free', async () => {
    expectSuccess(await asAcme(`/dcs/dc-1/routes/${route.id}`, 'DELETE'), routes.deleteRoute);
    await waitForDeletion(route.id);
    expect((await shardItems(header)).flat()).toEqual([]);
    expect(await findHeldClaims(acme.accountId, claimsOf(revised))).toEqual([]);
  });
});
