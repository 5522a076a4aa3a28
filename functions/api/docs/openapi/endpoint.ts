import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { docsEndpoint } from '../schemas';

export const getOpenApiDocument = /* @__PURE__ */ docsEndpoint('GET /openapi.json', {
  operationId: 'getOpenApiDocument',
  module: import.meta.url,
  summary: 'This OpenAPI 3.1 document (no envelope, no auth)',
  responses:
    import.meta.responseSchemas !== false &&
    ok('the OpenAPI document', z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown())),
});
