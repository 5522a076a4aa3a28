import * as z from '../../../shared/zod';

import { DOCS_ASSET_FILES, docsEndpoint } from '../schemas';

export const getDocsAsset = /* @__PURE__ */ docsEndpoint('GET /docs/assets/{file}', {
  operationId: 'getDocsAsset',
  module: import.meta.url,
  summary: 'A script, style sheet or license text of the API reference page (no envelope, no auth)',
  request: { params: /* @__PURE__ */ z.object({ file: /* @__PURE__ */ z.enum(DOCS_ASSET_FILES) }) },
  responses: import.meta.responseSchemas !== false && {
    200: {
      description: 'the file: a script, a style sheet or a license text',
      data: /* @__PURE__ */ z.string(),
      contentTypes: ['text/javascript', 'text/css', 'text/plain'],
    },
    304: { description: 'not modified: `If-None-Match` names the file’s current `ETag`' },
  },
  errorCodes: [1007],
  // Swagger UI's files are read from swagger-ui-dist at run time, not bundled into the handler's code.
  bundledFiles: [
    'swagger-ui-dist/package.json',
    'swagger-ui-dist/swagger-ui-bundle.js',
    'swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt',
    'swagger-ui-dist/swagger-ui.css',
  ],
});
