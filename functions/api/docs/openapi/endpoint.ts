import * as z from 'zod';
import { docsEndpoint } from '../schemas';

export const getOpenApiDocument = docsEndpoint('getOpenApiDocument', 'GET /openapi.json', {
  module: import.meta.url,
  summary: 'This OpenAPI 3.1 document (no envelope, no auth)',
  request: {},
  responses: { 200: { description: 'the OpenAPI document', data: z.record(z.string(), z.unknown()) } },
  errorCodes: [],
});
