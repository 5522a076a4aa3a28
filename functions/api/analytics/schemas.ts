import * as z from 'zod';
import { DcParams, FULL_PAGES, Id } from '../../models/common';
import { defineEndpoint } from '../define';

export const TAG = 'Analytics';

export const RouteParams = DcParams.extend({ route_id: Id });

export const ColumnDefinitions = z
  .record(z.string(), z.object({ column_name: z.string(), column_description: z.string() }))
  .meta({ id: 'ColumnDefinitions', description: 'by column id, in CSV column order' });

export const AnalyticsRecord = z
  .record(z.string(), z.union([z.string(), z.number(), z.null()]))
  .meta({ id: 'AnalyticsRecord', description: 'values by column id (see the column definitions)' });

/**
 * Attempt records per page: a record is 7.8 KB when every name and id is at its maximum length (with 20
 * time windows), so the byte budget ends a page of such records after about 500.
 */
export const ATTEMPT_ANALYTICS_PAGE = FULL_PAGES;

/** Both analytics reads of one finished route; `module` is the slice's row module (`import.meta.url`). */
export const singleRouteAnalytics = (module: string, kind: 'route' | 'attempts') =>
  defineEndpoint({
    operationId: kind === 'route' ? 'getRouteAnalytics' : 'getAttemptAnalytics',
    method: 'GET',
    path: `/dcs/{dc_id}/routes/{route_id}/analytics/${kind}`,
    auth: 'apiKey',
    module,
    summary:
      kind === 'route'
        ? 'A finished route’s analytics record (404 until it is finished)'
        : 'A finished route’s attempt analytics, in attempt order (404 until it is finished)',
    tag: TAG,
    // Computes and stores analytics a finished route is still missing.
    access: { table: 'readWrite' },
    request: { params: RouteParams },
    responses: {
      200: { description: 'the analytics', data: z.object({ route_analytics: AnalyticsRecord }) },
    },
    errorCodes: [3003, 1003],
  });
