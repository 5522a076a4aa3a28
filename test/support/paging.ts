import { expect } from 'vitest';
import type * as routes from '../../functions/api/routes/index';
import { putAll } from '../../functions/data/client';
import { type InvoiceRow, routeRowItems, type WaypointRow } from '../../functions/data/route-rows';
import type * as z from '../../functions/shared/zod';
import { type ApiResponse, readAllPages } from './http';

/** The page readers and worst-case rows of test/e2e/paging.test.ts. */

type InvoiceStatus = z.infer<typeof routes.InvoiceStatus>;

/** Every page at `limit` (none: the default), each page's rows checked against the limit. */
export async function pagesOf(
  get: (path: string) => Promise<ApiResponse>,
  path: string,
  endpoint: Parameters<typeof readAllPages>[2],
  listKey: string,
  limit?: number,
) {
  const pages = await readAllPages(get, path, endpoint, limit ? { limit: String(limit) } : {});
  for (const page of pages.slice(0, -1)) expect(page.next_token).toEqual(expect.any(String));
  expect(pages.at(-1)?.next_token).toBeUndefined();
  return pages.map((page) => page[listKey] as { id: string }[]);
}

export const ids = (pages: { id: string }[][]) => pages.flat().map((row) => row.id);

/** Pages' rows: an invoice that continues the previous page's last one counts only its items. */
export function rowsOfInvoicePages(pages: InvoiceStatus[][]): string[] {
  const rows: string[] = [];
  let previous: string | undefined;
  for (const page of pages) {
    page.forEach((invoice, index) => {
      if (!(index === 0 && invoice.id === previous)) rows.push(invoice.id);
      rows.push(...invoice.items.map((item) => item.id));
    });
    previous = page.at(-1)?.id;
  }
  return rows;
}

/** A text of `length` characters that JSON escapes twice (`"`): the largest a row's text can be on the wire. */
export const longText = (length: number) => '"'.repeat(length);

/** 50 name attributes of maximum length, in characters JSON escapes twice: an invoice's worst case. */
export const worstNameAttributes = () =>
  Array.from({ length: 50 }, () => ({ key: longText(128), value: longText(500) }));

/** A waypoint row as the import writes it, with no service time, time windows or rules. */
export const waypointRow = (
  sequence: number,
  waypoint: { id: string; location: WaypointRow['location'] },
  invoiceIds: string[] = [],
): WaypointRow => ({
  sequence,
  id: waypoint.id,
  location: waypoint.location,
  serviceTimeMinutes: 0,
  timeWindows: [],
  invoiceIds,
});

/**
 * Writes the route's rows of these entities as the import writes them, straight to the table: the import
 * body's 5 MB limit cannot carry the megabytes of worst-case rows these tests page through.
 */
export async function writeRouteRows(
  accountId: string,
  routeId: string,
  waypoints: WaypointRow[],
  invoicesByWaypoint: InvoiceRow[][],
  entities: ('INVOICE' | 'ITEM')[],
): Promise<void> {
  const rows = routeRowItems(accountId, routeId, waypoints, invoicesByWaypoint);
  await putAll(rows.filter((row) => (entities as unknown[]).includes(row.entity)));
}
