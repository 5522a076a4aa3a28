import * as z from 'zod';
import { defineEndpoint } from '../../define';

export const getOpenApiDocument = defineEndpoint({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  auth: 'none',
  module: import.meta.url,
  summary: 'This OpenAPI 3.1 document (no envelope, no auth)',
  tag: 'Docs',
  access: {},
  request: {},
  responses: { 200: { description: 'the OpenAPI document', data: z.record(z.string(), z.unknown()) } },
  errorCodes: [],
  envelope: false,
});
