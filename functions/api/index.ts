import { getAttemptAnalytics } from './analytics/attempts/endpoint';
import { getColumnDefinitions } from './analytics/column-definitions/endpoint';
import { getAnalyticsDownloadFiles } from './analytics/download-files/endpoint';
import { requestAnalyticsDownload } from './analytics/request-download/endpoint';
import { getRouteAnalytics } from './analytics/route/endpoint';
import { listDcs } from './dcs/list/endpoint';
import type { EndpointDefinition } from './define';
import { getDocsAsset } from './docs/asset/endpoint';
import { getOpenApiDocument } from './docs/openapi/endpoint';
import { getDocsPage } from './docs/page/endpoint';
import { addDriverAccountingRecord } from './driver-app/accounting/endpoint';
import { recordDriverAttempt } from './driver-app/attempt/endpoint';
import { finishDriverRoute } from './driver-app/finish/endpoint';
import { reportDriverLocation } from './driver-app/location/endpoint';
import { listDriverRoutes } from './driver-app/routes/endpoint';
import { startDriverRoute } from './driver-app/start/endpoint';
import { getDriverActiveRoutes } from './drivers/active-routes/endpoint';
import { getDriverBulkInfo } from './drivers/bulk-info/endpoint';
import { createDriver } from './drivers/create/endpoint';
import { deleteDriver } from './drivers/delete/endpoint';
import { finishDriverRoutes, finishDriverRoutesPut } from './drivers/finish-routes/endpoint';
import { getDriver } from './drivers/get/endpoint';
import { listDrivers } from './drivers/list/endpoint';
import { getDriverLocation } from './drivers/location/endpoint';
import { updateDriver } from './drivers/update/endpoint';
import { getRouteAccounting } from './routes/accounting/endpoint';
import { activateRoute, activateRoutePut } from './routes/activate/endpoint';
import { assignDriver, assignDriverPut } from './routes/assign-driver/endpoint';
import { assignVehicle, assignVehiclePut } from './routes/assign-vehicle/endpoint';
import { getCompletionTime } from './routes/completion-time/endpoint';
import { deactivateRoute, deactivateRoutePut } from './routes/deactivate/endpoint';
import { deleteRoute } from './routes/delete/endpoint';
import { findRoutesByDate } from './routes/find-by-date/endpoint';
import { finishRoute, finishRoutePut } from './routes/finish/endpoint';
import { getRoute } from './routes/get/endpoint';
import { importRoute } from './routes/import/endpoint';
import { getImportStatus } from './routes/import-status/endpoint';
import { getInvoiceStatus } from './routes/invoices/endpoint';
import { startRoute, startRoutePut } from './routes/start/endpoint';
import { unassignDriver } from './routes/unassign-driver/endpoint';
import { createImportUpload } from './routes/upload/endpoint';
import { getWaypoint } from './routes/waypoint/endpoint';
import { listWaypoints } from './routes/waypoints/endpoint';
import { createWebhook } from './webhooks/create/endpoint';
import { deleteWebhook } from './webhooks/delete/endpoint';
import { listWebhookDeliveries } from './webhooks/deliveries/endpoint';
import { listWebhooks } from './webhooks/list/endpoint';
import { redeliverWebhookDelivery } from './webhooks/redeliver/endpoint';
import { redeliverFailedWebhookDeliveries } from './webhooks/redeliver-failed/endpoint';
import { rotateWebhookSecret } from './webhooks/rotate-secret/endpoint';
import { testWebhook } from './webhooks/test/endpoint';
import { updateWebhook, updateWebhookPut } from './webhooks/update/endpoint';

/**
 * The endpoint list: CDK, the local server, the OpenAPI document and the coverage test all read it. Each row
 * comes from its slice (`functions/api/<group>/<name>/endpoint.ts`), whose `handler.ts` beside it is the
 * endpoint's Lambda; rows of one slice share that Lambda.
 */
export const endpoints: readonly EndpointDefinition[] = [
  listDcs,
  listDrivers,
  createDriver,
  getDriver,
  updateDriver,
  deleteDriver,
  getDriverBulkInfo,
  getDriverLocation,
  getDriverActiveRoutes,
  finishDriverRoutes,
  finishDriverRoutesPut,
  importRoute,
  createImportUpload,
  getImportStatus,
  getInvoiceStatus,
  getRouteAccounting,
  getRoute,
  findRoutesByDate,
  listWaypoints,
  getWaypoint,
  activateRoute,
  activateRoutePut,
  deactivateRoute,
  deactivateRoutePut,
  assignDriver,
  assignDriverPut,
  unassignDriver,
  assignVehicle,
  assignVehiclePut,
  startRoute,
  startRoutePut,
  finishRoute,
  finishRoutePut,
  getCompletionTime,
  deleteRoute,
  listDriverRoutes,
  startDriverRoute,
  recordDriverAttempt,
  addDriverAccountingRecord,
  reportDriverLocation,
  finishDriverRoute,
  listWebhooks,
  createWebhook,
  updateWebhook,
  updateWebhookPut,
  deleteWebhook,
  listWebhookDeliveries,
  testWebhook,
  rotateWebhookSecret,
  redeliverWebhookDelivery,
  redeliverFailedWebhookDeliveries,
  getColumnDefinitions,
  requestAnalyticsDownload,
  getAnalyticsDownloadFiles,
  getRouteAnalytics,
  getAttemptAnalytics,
  getOpenApiDocument,
  getDocsPage,
  getDocsAsset,
];
