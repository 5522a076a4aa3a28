import * as z from 'zod';
import { Dc, dcsEndpoint } from '../schemas';

export const listDcs = dcsEndpoint('listDcs', 'GET /dcs', {
  module: import.meta.url,
  summary: 'List the DCs of the API key’s account',
  request: {},
  responses: { 200: { description: 'the account’s DCs', data: z.object({ dcs: z.array(Dc) }) } },
  errorCodes: [],
});
