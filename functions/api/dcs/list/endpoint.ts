import * as z from 'zod';
import { defineEndpoint } from '../../define';
import { Dc } from '../schemas';

export const listDcs = defineEndpoint({
  operationId: 'listDcs',
  method: 'GET',
  path: '/dcs',
  auth: 'apiKey',
  module: import.meta.url,
  summary: 'List the DCs of the API key’s account',
  tag: 'DCs',
  access: { table: 'read' },
  request: {},
  responses: { 200: { description: 'the account’s DCs', data: z.object({ dcs: z.array(Dc) }) } },
  errorCodes: [],
});
