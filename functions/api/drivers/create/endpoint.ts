import { DcParams } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { CreateDriverBody, DriverData, TAG } from '../schemas';

export const createDriver = defineEndpoint({
  operationId: 'createDriver',
  method: 'POST',
  path: '/dcs/{dc_id}/drivers',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'Create a driver in a DC',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: DcParams, body: CreateDriverBody },
  responses: { 200: { description: 'the created driver', data: DriverData } },
  errorCodes: [2000, 2002],
});
