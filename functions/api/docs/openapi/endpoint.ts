import * as z from '../../../shared/zod';
import { docsEndpoint } from '../schemas';

export const getOpenApiDocument = docsEndpoint('GET /openapi.json', {
  operationId: 'getOpenApiDocument',
  module: import.meta.url,
  summary: 'This OpenAPI 3.1 document (no envelope, no auth)',
  responses: { 200: { description: 'the OpenAPI document', data: z.record(z.string(), z.unknown()) } },
});
