import * as z from 'zod';
import { ANALYTICS_FILES_PREFIX } from '../shared/resources';
import { DcParams, EpochMillis, FULL_PAGES, Id, Label, NextToken, pagedQuery, SafeText } from './common';
import { defineEndpoint } from './define';

const TAG = 'Analytics';
const RouteParams = DcParams.extend({ route_id: Id });

const ColumnDefinitions = z
  .record(z.string(), z.object({ column_name: z.string(), column_description: z.string() }))
  .meta({ id: 'ColumnDefinitions', description: 'by column id, in CSV column order' });

const AnalyticsRecord = z
  .record(z.string(), z.union([z.string(), z.number(), z.null()]))
  .meta({ id: 'AnalyticsRecord', description: 'values by column id (see the column definitions)' });

export const getColumnDefinitions = defineEndpoint({
  operationId: 'getColumnDefinitions',
  method: 'GET',
  path: '/analytics/column-definitions',
  auth: 'apiKey',
  handler: 'analytics/column-definitions',
  summary: 'What every column of the route and attempt analytics means',
  tag: TAG,
  access: {},
  request: {},
  responses: {
    200: {
      description: 'both maps',
      data: z.object({
        route_analysis_column_definitions: ColumnDefinitions,
        attempt_analysis_column_definitions: ColumnDefinitions,
      }),
    },
  },
  errorCodes: [],
});

export const requestAnalyticsDownload = defineEndpoint({
  operationId: 'requestAnalyticsDownload',
  method: 'POST',
  path: '/analytics/download-requests',
  auth: 'apiKey',
  handler: 'analytics/request-download',
  summary: 'Request CSV files of route and/or attempt analytics for DCs and DC-local dates',
  tag: TAG,
  access: { table: 'readWrite', sendTo: ['analytics'] },
  // Each request can read millions of rows; the export worker runs two at a time.
  throttling: { rateLimit: 2, burstLimit: 10 },
  request: {
    body: z
      .object({
        dc_ids: z.array(Id).max(100),
        from_date: Label(64).meta({ description: 'YYYY-MM-DD, in each DC’s local time' }),
        to_date: Label(64).meta({ description: 'YYYY-MM-DD, inclusive; at most 92 days after from_date' }),
        analytics_types: z
          .array(Label(64))
          .max(10)
          .meta({ description: 'ROUTE_ANALYTICS and/or ATTEMPT_ANALYTICS' }),
      })
      .meta({ id: 'AnalyticsDownloadRequest' }),
  },
  responses: {
    200: {
      description: 'accepted; poll the files with the txid',
      data: z.object({ download_request_txid: z.string() }),
    },
  },
  errorCodes: [6001, 6002, 6003, 6004, 6005, 1002],
});

export const getAnalyticsDownloadFiles = defineEndpoint({
  operationId: 'getAnalyticsDownloadFiles',
  method: 'GET',
  path: '/analytics/download-requests/{download_request_txid}/files',
  auth: 'apiKey',
  handler: 'analytics/download-files',
  summary: 'The files of a download request: 202 while they are generated, then links valid for an hour',
  tag: TAG,
  // Only presigns GETs of the export's files; it reads no object itself.
  access: { table: 'read', signLinks: { access: 'read', keyPrefix: ANALYTICS_FILES_PREFIX } },
  // Any text of up to 256 characters: a txid this service never issued is 6000 (the spec's only code here),
  // not a format error; longer ones, or ones with characters no text may have, are 1006 like any parameter.
  request: { params: z.object({ download_request_txid: SafeText({ min: 1, max: 256 }) }) },
  responses: {
    200: {
      description: 'the files',
      data: z.object({
        download_request_files: z.array(
          z
            .object({
              file_type: z.literal('CSV'),
              download_link: z.string(),
              expiration_timestamp: EpochMillis,
              download_type: z.enum(['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS']),
            })
            .meta({ id: 'DownloadFile' }),
        ),
      }),
    },
    202: {
      description: 'still being generated; poll again',
      data: z.object({ download_request_txid: z.string() }),
    },
  },
  errorCodes: [6000],
});

/**
 * Attempt records per page: a record is 7.8 KB when every name and id is at its maximum length (with 20
 * time windows), so the byte budget ends a page of such records after about 500.
 */
export const ATTEMPT_ANALYTICS_PAGE = FULL_PAGES;

const singleRouteAnalytics = (kind: 'route' | 'attempts') =>
  defineEndpoint({
    operationId: kind === 'route' ? 'getRouteAnalytics' : 'getAttemptAnalytics',
    method: 'GET',
    path: `/dcs/{dc_id}/routes/{route_id}/analytics/${kind}`,
    auth: 'apiKey',
    handler: kind === 'route' ? 'analytics/route' : 'analytics/attempts',
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

export const getRouteAnalytics = singleRouteAnalytics('route');
export const getAttemptAnalytics = defineEndpoint({
  ...singleRouteAnalytics('attempts'),
  request: { params: RouteParams, query: pagedQuery(ATTEMPT_ANALYTICS_PAGE) },
  responses: {
    200: {
      description: 'the analytics',
      data: z.object({ attempt_analytics: z.array(AnalyticsRecord), next_token: NextToken }),
    },
  },
});

export const analyticsEndpoints = [
  getColumnDefinitions,
  requestAnalyticsDownload,
  getAnalyticsDownloadFiles,
  getRouteAnalytics,
  getAttemptAnalytics,
];
