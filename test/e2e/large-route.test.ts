import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { findHeldClaims } from '../../functions/data/claims';
import { getRouteHeader } from '../../functions/data/routes';
import { claimsOf } from '../../functions/domain/route-ids';
import { MAX_BODY_BYTES } from '../../functions/shared/limits';
import { createTestAccount } from '../support/accounts';
import { call, expectError, expectSuccess, joinPages, readAllPages } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, uploadAndImport } from '../support/routes';

/**
 * The largest route the service takes (2,000 waypoints, 50,000 items, every optional field filled with
 * realistic text) through every limit of AWS the local runtime enforces: its body is over what API Gateway
 * and Lambda take in one request, so it goes through an upload link; every answer that reads it back stays
 * under Lambda's 6 MB (else the gateway's 502); its deletion answers at once and a worker removes its rows
 * and frees its ids.
 */

/**
 * Quiet, the import takes about three minutes and the deletion two (DynamoDB Local writes on one core): each
 * waits up to five times that (a machine running three other test processes took 606 s to import), the
 * whole test a little more than the two together.
 */
const PHASE_DEADLINE_MS = 900_000;
const DEADLINE_MS = 1_800_000;

let api: TestApi;
let acme: { accountId: string; key: string };
const asAcme = (pathAndQuery: string, method = 'GET') =>
  call(api.url, method, pathAndQuery, { key: acme.key });

beforeAll(async () => {
  api = await startTestApi('large-route');
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
});

afterAll(() => api?.close());

describe('a route of 2,000 waypoints and 50,000 items', () => {
  it(
    'uploads, reads back whole page by page, deletes at once and frees every id',
    async () => {
      const route = exampleRoute('big-1', {
        waypoints: 2000,
        invoicesPerWaypoint: 1,
        itemsPerInvoice: 25,
        realisticText: true,
      });
      const body = JSON.stringify({ route });
      expect(Buffer.byteLength(body)).toBeGreaterThan(2 * MAX_BODY_BYTES);

      const imported = await uploadAndImport(api.url, acme.key, 'dc-1', body, PHASE_DEADLINE_MS);
      expect(expectSuccess(imported, routes.getImportStatus)).toMatchObject({ status: 'SUCCEEDED' });

      // Every item, in import order, through the pages: no page passes the 6 MB the local runtime enforces.
      const invoicePages = await readAllPages(
        asAcme,
        '/dcs/dc-1/routes/big-1/invoices',
        routes.getInvoiceStatus,
      );
      const invoices = joinPages<{
        id: string;
        items: { id: string; name: string | null; display_unit_of_measure: string | null }[];
      }>(invoicePages, 'invoices', 'items');
      expect(invoices.map((invoice) => invoice.id)).toEqual(
        route.waypoints.map((waypoint) => waypoint.invoices[0]?.id),
      );
      const items = invoices.flatMap((invoice) => invoice.items);
      expect(items).toHaveLength(50_000);
      expect(items.map((item) => item.id)).toEqual(
        route.waypoints.flatMap((waypoint) =>
          waypoint.invoices.flatMap((invoice) => invoice.items.map((i) => i.id)),
        ),
      );
      expect(items.at(-1)?.name).toBe(route.waypoints[1999]?.invoices[0]?.items[24]?.name);
      expect(items.at(-1)?.display_unit_of_measure).toBe('CASE OF 12');
      const waypointPages = await readAllPages(
        asAcme,
        '/dcs/dc-1/routes/big-1/waypoints',
        routes.listWaypoints,
      );
      const waypoints = waypointPages.flatMap((page) => page.waypoints as { id: string }[]);
      expect(waypoints.map((waypoint) => waypoint.id)).toEqual(
        route.waypoints.map((waypoint) => waypoint.id),
      );

      // The DELETE answers (a synchronous one would pass API Gateway's 29 s: 504), and the route is gone at once.
      expectSuccess(await asAcme('/dcs/dc-1/routes/big-1', 'DELETE'), routes.deleteRoute);
      expectError(await asAcme('/dcs/dc-1/routes/big-1'), 404, 3003);
      expectError(await asAcme('/dcs/dc-1/routes/big-1/invoices'), 400, 3003);

      // Its ids are freed once the worker has removed its rows (the header goes last, after the route id's
      // claim; read as the operator): not one of its 54,001 ids stays claimed. That a freed route imports
      // again is route-deletion.test.ts's, on a small route.
      const deadline = Date.now() + PHASE_DEADLINE_MS;
      while (await getRouteHeader(acme.accountId, 'big-1')) {
        expect(Date.now(), 'the deletion worker has not finished').toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      const claims = claimsOf(route);
      expect(claims).toHaveLength(1 + 2000 + 2000 + 50_000);
      expect(await findHeldClaims(acme.accountId, claims)).toEqual([]);
    },
    DEADLINE_MS,
  );
});
