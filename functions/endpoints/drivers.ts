import * as z from 'zod';
import { SECRET_PREFIX } from '../shared/crypto';
import { DcParams, EmptyData, EpochMillis, Id, Location, Name, NextToken, PaginationQuery } from './common';
import { alsoAs, defineEndpoint } from './define';

export const Driver = z
  .object({
    id: z.string(),
    name: z.string(),
    login_token: z.string().meta({ description: 'secret the driver app signs in with' }),
  })
  .meta({ id: 'Driver' });

export const DriverLocation = z
  .object({ timestamp: EpochMillis, location: Location })
  .nullable()
  .meta({ id: 'DriverLocation', description: 'null until the driver reports a location' });

export const ActiveRoute = z
  .object({ planned_start_time: EpochMillis, route_id: z.string() })
  .meta({ id: 'ActiveRoute' });

const DriverParams = DcParams.extend({ driver_id: Id });

/** A client-chosen login token: unique across the service (claimed; 2002 when in use). */
const LoginToken = z
  .string()
  .min(16)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
  .refine(
    (token) => !token.startsWith(SECRET_PREFIX.apiKey),
    `must not start with '${SECRET_PREFIX.apiKey}' (API keys do)`,
  );

export const CreateDriverBody = z
  .object({
    driver_id: Id,
    driver_name: Name,
    login_token: LoginToken.optional().meta({
      description:
        'unique across the service; generated (43 random base64url characters after `drv_`) when absent',
    }),
  })
  .meta({ id: 'CreateDriverRequest' });

export const UpdateDriverBody = z
  .object({
    driver_name: Name.optional(),
    login_token: LoginToken.optional().meta({
      description: 'a new token: claimed, and the old one stops working and is freed at once',
    }),
  })
  .refine((body) => body.driver_name !== undefined || body.login_token !== undefined, {
    path: ['driver_name'],
    message: 'required unless login_token is given',
  })
  .meta({ id: 'UpdateDriverRequest' });

const DriverData = z.object({ driver: Driver });
const TAG = 'Drivers';

export const listDrivers = defineEndpoint({
  operationId: 'listDrivers',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers',
  auth: 'apiKey',
  handler: 'drivers/list',
  summary: 'List the drivers of a DC',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DcParams, query: PaginationQuery },
  responses: {
    200: {
      description: 'the DC’s drivers',
      data: z.object({ drivers: z.array(Driver), next_token: NextToken }),
    },
  },
  errorCodes: [],
});

export const createDriver = defineEndpoint({
  operationId: 'createDriver',
  method: 'POST',
  path: '/dcs/{dc_id}/drivers',
  auth: 'apiKey',
  handler: 'drivers/create',
  summary: 'Create a driver in a DC',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DcParams, body: CreateDriverBody },
  responses: { 200: { description: 'the created driver', data: DriverData } },
  errorCodes: [2000, 2002],
});

export const getDriver = defineEndpoint({
  operationId: 'getDriver',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}',
  auth: 'apiKey',
  handler: 'drivers/get',
  summary: 'Read a driver',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: { 200: { description: 'the driver', data: DriverData } },
  errorCodes: [1003],
});

export const updateDriver = defineEndpoint({
  operationId: 'updateDriver',
  method: 'PATCH',
  path: '/dcs/{dc_id}/drivers/{driver_id}',
  auth: 'apiKey',
  handler: 'drivers/update',
  summary: 'Rename a driver or change its login token',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DriverParams, body: UpdateDriverBody },
  responses: { 200: { description: 'the updated driver', data: DriverData } },
  errorCodes: [1003, 2002],
});

export const deleteDriver = defineEndpoint({
  operationId: 'deleteDriver',
  method: 'DELETE',
  path: '/dcs/{dc_id}/drivers/{driver_id}',
  auth: 'apiKey',
  handler: 'drivers/delete',
  summary: 'Delete a driver (refused while it has active routes); its login token stops working at once',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DriverParams },
  responses: { 200: { description: 'deleted', data: EmptyData } },
  errorCodes: [1003, 2001],
});

export const getDriverBulkInfo = defineEndpoint({
  operationId: 'getDriverBulkInfo',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}/driver_bulk_info',
  auth: 'apiKey',
  handler: 'drivers/bulk-info',
  summary: 'Read a driver together with its latest location',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: {
    200: {
      description: 'driver and latest location',
      data: z.object({ driver: Driver, driver_location: DriverLocation }),
    },
  },
  errorCodes: [1003],
});

export const getDriverLocation = defineEndpoint({
  operationId: 'getDriverLocation',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}/location',
  auth: 'apiKey',
  handler: 'drivers/location',
  summary: 'Read a driver’s latest location',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: { 200: { description: 'latest location', data: z.object({ driver_location: DriverLocation }) } },
  errorCodes: [1003],
});

export const getDriverActiveRoutes = defineEndpoint({
  operationId: 'getDriverActiveRoutes',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers/{driver_id}/active-routes',
  auth: 'apiKey',
  handler: 'drivers/active-routes',
  summary: 'List a driver’s active (and started) routes by planned start',
  tag: TAG,
  access: { table: 'read' },
  request: { params: DriverParams },
  responses: {
    200: { description: 'active routes', data: z.object({ active_routes: z.array(ActiveRoute) }) },
  },
  errorCodes: [1003],
});

export const finishDriverRoutes = defineEndpoint({
  operationId: 'finishDriverRoutes',
  method: 'PATCH',
  path: '/dcs/{dc_id}/drivers/{driver_id}/finish-routes',
  auth: 'apiKey',
  handler: 'drivers/finish-routes',
  summary: 'Finalize all active routes of a driver',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DriverParams },
  responses: {
    200: {
      description: 'ids of the routes this call finalized',
      data: z.object({ finalized_route_ids: z.array(z.string()) }),
    },
  },
  errorCodes: [1003],
});

export const driverEndpoints = [
  listDrivers,
  createDriver,
  getDriver,
  updateDriver,
  deleteDriver,
  getDriverBulkInfo,
  getDriverLocation,
  getDriverActiveRoutes,
  finishDriverRoutes,
  alsoAs(finishDriverRoutes, 'PUT'),
];
