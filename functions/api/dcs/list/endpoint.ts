import * as z from '../../../shared/zod';
import { Dc, dcsEndpoint } from '../schemas';

export const listDcs = dcsEndpoint('GET /dcs', {
  operationId: 'listDcs',
  module: import.meta.url,
  summary: 'List the DCs of the API key’s account',
  responses: { 200: { description: 'the account’s DCs', data: z.object({ dcs: z.array(Dc) }) } },
});
