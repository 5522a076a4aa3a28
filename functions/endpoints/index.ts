import { dcEndpoints } from './dcs';
import { alsoAs, type EndpointDefinition } from './define';
import { docsEndpoints } from './docs';
import { driverEndpoints } from './drivers';
import {
  activateRoute,
  assignDriver,
  assignVehicle,
  deactivateRoute,
  deleteRoute,
  findRoutesByDate,
  getImportStatus,
  getInvoiceStatus,
  getRoute,
  getRouteAccounting,
  getWaypoint,
  importRoute,
  listWaypoints,
  unassignDriver,
} from './routes';

/** The endpoint list: CDK, the local server, the OpenAPI document and the coverage test all read it. */
export const endpoints: readonly EndpointDefinition[] = [
  ...dcEndpoints,
  ...driverEndpoints,
  importRoute,
  getImportStatus,
  getInvoiceStatus,
  getRouteAccounting,
  getRoute,
  findRoutesByDate,
  listWaypoints,
  getWaypoint,
  activateRoute,
  alsoAs(activateRoute, 'PUT'),
  deactivateRoute,
  alsoAs(deactivateRoute, 'PUT'),
  assignDriver,
  alsoAs(assignDriver, 'PUT'),
  unassignDriver,
  assignVehicle,
  alsoAs(assignVehicle, 'PUT'),
  deleteRoute,
  ...docsEndpoints,
];
