import * as z from 'zod';
import { defineEndpoint } from './define';

export const Dc = z
  .object({ id: z.string(), name: z.string(), time_zone: z.string().meta({ description: 'IANA time zone' }) })
  .meta({ id: 'Dc' });

export const listDcs = defineEndpoint({
  operationId: 'listDcs',
  method: 'GET',
  path: '/dcs',
  auth: 'apiKey',
  handler: 'dcs/list',
  summary: 'List the DCs of the API key’s account',
  tag: 'DCs',
  access: { table: 'read' },
  request: {},
  responses: { 200: { description: 'the account’s DCs', data: z.object({ dcs: z.array(Dc) }) } },
  errorCodes: [],
});

export const dcEndpoints = [listDcs];
