import { DcParams, NextToken, PaginationQuery } from '../../../models/common';
import * as z from '../../../shared/zod';
import { Driver, driversEndpoint } from '../schemas';

export const listDrivers = driversEndpoint('GET /dcs/{dc_id}/drivers', {
  operationId: 'listDrivers',
  module: import.meta.url,
  summary: 'List the drivers of a DC',
  request: { params: DcParams, query: PaginationQuery },
  responses: {
    200: {
      description: 'the DC’s drivers',
      data: z.object({ drivers: z.array(Driver), next_token: NextToken }),
    },
  },
  errorCodes: [],
});
