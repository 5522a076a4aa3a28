import { DcParams, FULL_PAGES, Id } from '../../models/common';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

export const TAG = 'Analytics';

export const RouteParams = z.extend(DcParams, { route_id: Id });

export const ColumnDefinitions = z.withMeta(
  z.record(z.string(), z.object({ column_name: z.string(), column_description: z.string() })),
  { id: 'ColumnDefinitions', description: 'by column id, in CSV column order' },
);

export const AnalyticsRecord = z.withMeta(z.record(z.string(), z.union([z.string(), z.number(), z.null()])), {
  id: 'AnalyticsRecord',
  description: 'values by column id (see the column definitions)',
});

/**
 * Attempt records per page: a record weighs 9.5 KB (proxyBytesOf) when every name and id is at its maximum
 * length (with 20 time windows), so the byte budget ends a page of such records after about 440.
 */
export const ATTEMPT_ANALYTICS_PAGE = FULL_PAGES;

/** The analytics rows: an API key's and read-only unless the row says otherwise. */
export const analyticsEndpoint = endpointGroup({ tag: TAG });

/** The analytics of one finished route, which a read computes and stores if it is still missing. */
export const routeAnalyticsEndpoint = endpointGroup({
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams },
  errorCodes: [3003, 1003],
});
