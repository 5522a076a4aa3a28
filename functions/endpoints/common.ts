import * as z from 'zod';
import { PAGE_BYTE_BUDGET } from '../shared/limits';

/** Ids: 1..128 characters, none of them whitespace, `/` or control characters (they travel in URL paths). */
export const Id = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\s/\p{Cc}]+$/u, 'must not contain whitespace, "/" or control characters');

/** Human-readable names: 1..200 characters, not blank, no control characters. */
export const Name = z
  .string()
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters')
  .refine((value) => value.trim().length > 0, 'must not be blank');

export const EpochMillis = z.number().int().min(0).meta({ description: 'milliseconds since the Unix epoch' });

/** Clocks of phones drift; a reported time further ahead than this is a client bug, not a skew. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** A time a client reports for something that happened (a visit, a ping): not in the future. */
export const ReportedTimestamp = EpochMillis.refine(
  (timestamp) => timestamp <= Date.now() + MAX_CLOCK_SKEW_MS,
  'is more than 5 minutes in the future',
);

export const Location = z
  .object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) })
  .meta({ id: 'Location' });

export const DcParams = z.object({ dc_id: Id });

/** The most rows a page of any list holds. */
export const MAX_PAGE_ROWS = 1000;

/** Optional paging of the driver list: without `limit` the whole list is returned. */
export const PaginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_ROWS).optional(),
  next_token: z.string().min(1).max(2048).optional(),
});

export const NextToken = z.string().optional().meta({ description: 'present when more items remain' });

/**
 * Paging of a list that grows with a route: `limit` rows per page, `defaultLimit` without one. A page also
 * ends early once its rows reach PAGE_BYTE_BUDGET, which keeps it under Lambda's 6 MB response limit
 * whatever the rows hold (checked in test/unit/page-sizes.test.ts).
 */
export interface PageSize {
  defaultLimit: number;
  maxLimit: number;
}

/** Pages of MAX_PAGE_ROWS rows unless `limit` asks for fewer. */
export const FULL_PAGES = {
  defaultLimit: MAX_PAGE_ROWS,
  maxLimit: MAX_PAGE_ROWS,
} as const satisfies PageSize;

/** How the byte budget ends a page, as the API documentation says it. */
export const PAGE_BYTES_NOTE =
  `A page ends earlier once its rows reach ${PAGE_BYTE_BUDGET / (1024 * 1024)} MiB of the response ` +
  '(it always holds at least one row); its `next_token` continues just after its last row.';

export const pagedQuery = ({ defaultLimit, maxLimit }: PageSize) =>
  z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(maxLimit)
      .default(defaultLimit)
      .meta({
        description: `most rows per page, 1..${maxLimit}; ${defaultLimit} when absent. ${PAGE_BYTES_NOTE}`,
      }),
    next_token: PaginationQuery.shape.next_token.meta({
      description: 'the `next_token` of the previous page',
    }),
  });

export const EmptyData = z.object({}).meta({ id: 'Empty' });

/** True for a real calendar date written YYYY-MM-DD (2024-02-30 is not one). */
export function isCalendarDate(date: string): boolean {
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date);
}

export const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
  .refine(isCalendarDate, 'is not a calendar date');
