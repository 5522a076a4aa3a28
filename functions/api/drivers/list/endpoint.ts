import * as z from 'zod';
import { DcParams, NextToken, PaginationQuery } from '../../../models/common';
import { defineEndpoint } from '../../define';
import { Driver, TAG } from '../schemas';

export const listDrivers = defineEndpoint({
  operationId: 'listDrivers',
  method: 'GET',
  path: '/dcs/{dc_id}/drivers',
  auth: 'apiKey',
  module: import.meta.url,
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
