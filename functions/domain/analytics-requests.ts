import type { AnalyticsType } from '../data/analytics';
import { putPendingDownload } from '../data/download-requests';
import * as channels from '../models/channels';
import { CalendarDate } from '../models/common';
import { randomId } from '../shared/crypto';
import { ApiError, ForbiddenDcError } from '../shared/errors';
import { send } from '../shared/queues';
import { quote, quoteList } from '../shared/quote';

/*
 * POST .../analytics/downloads: a request checked and queued for the export worker (analytics-export.ts). Apart
 * from the export, which reaches the bucket, and from the files' links (analytics-download-files.ts), which
 * reach STS: their SDK code would weigh on this one's cold start.
 */

export const ANALYTICS_TYPES = [
  'ROUTE_ANALYTICS',
  'ATTEMPT_ANALYTICS',
] as const satisfies readonly AnalyticsType[];
export const MAX_RANGE_DAYS = 92;
const DAY_MS = 86_400_000;

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOfDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Every date from `from` to `to`, inclusive (calendar dates: the same in every zone). */
export function datesBetween(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let day = dayNumber(from); day <= dayNumber(to); day++) dates.push(dateOfDay(day));
  return dates;
}

/**
 * Accepts a download request: checks it (6005, 6001, 6002, 6003, 6004, then 403 for a DC outside the
 * account), stores it as pending and queues it for the export worker.
 */
export async function requestDownload(
  accountId: string,
  accountDcIds: readonly string[],
  input: { dcIds: readonly string[]; fromDate: string; toDate: string; analyticsTypes: readonly string[] },
): Promise<string> {
  if (input.dcIds.length === 0) throw new ApiError('EMPTY_DC_IDS', 'dc_ids: name at least one DC');
  for (const [field, date] of [
    ['from_date', input.fromDate],
    ['to_date', input.toDate],
  ] as const) {
    if (!CalendarDate.safeParse(date).success) {
      throw new ApiError('INVALID_DATE', `${field}: ${quote(date)} is not a YYYY-MM-DD calendar date`);
    }
  }
  if (input.fromDate > input.toDate) {
    throw new ApiError('DATE_RANGE_REVERSED', `from_date ${input.fromDate} is after to_date ${input.toDate}`);
  }
  const days = dayNumber(input.toDate) - dayNumber(input.fromDate) + 1;
  if (days > MAX_RANGE_DAYS) {
    throw new ApiError(
      'DATE_RANGE_TOO_LONG',
      `the range covers ${days} days; at most ${MAX_RANGE_DAYS} are allowed`,
    );
  }
  const unknown = input.analyticsTypes.filter((type) => !ANALYTICS_TYPES.includes(type as AnalyticsType));
  if (input.analyticsTypes.length === 0 || unknown.length > 0) {
    throw new ApiError(
      'UNKNOWN_ANALYTICS_TYPE',
      `analytics_types: ${unknown.length ? `unknown ${quoteList(unknown)}` : 'name at least one'}; known: ${ANALYTICS_TYPES.join(', ')}`,
    );
  }
  const foreign = input.dcIds.find((dcId) => !accountDcIds.includes(dcId));
  if (foreign !== undefined) throw new ForbiddenDcError(foreign);

  const txid = randomId('dl_');
  await putPendingDownload({
    accountId,
    txid,
    dcIds: [...new Set(input.dcIds)],
    fromDate: input.fromDate,
    toDate: input.toDate,
    analyticsTypes: [...new Set(input.analyticsTypes)] as AnalyticsType[],
    status: 'PENDING',
    files: [],
    createdAt: Date.now(),
  });
  await send(channels.analytics, { account_id: accountId, txid });
  return txid;
}
