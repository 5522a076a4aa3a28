import { DcParams } from '../../../models/common';
import { CreateDriverBody, DriverData, driversEndpoint } from '../schemas';

export const createDriver = driversEndpoint('POST /dcs/{dc_id}/drivers', {
  operationId: 'createDriver',
  module: import.meta.url,
  summary: 'Create a driver in a DC',
  access: { table: 'readWrite' },
  request: { params: DcParams, body: CreateDriverBody },
  responses: { 200: { description: 'the created driver', data: DriverData } },
  errorCodes: [2000, 2002],
});
