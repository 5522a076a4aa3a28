import * as z from '../../../shared/zod';

import { docsEndpoint } from '../schemas';

export const getDocsPage = /* @__PURE__ */ docsEndpoint('GET /docs', {
  operationId: 'getDocsPage',
  module: import.meta.url,
  summary: 'The API reference: an HTML page rendering /openapi.json with Swagger UI (no envelope, no auth)',
  responses: import.meta.responseSchemas !== false && {
    200: {
      description:
        'the page; it loads its scripts and styles from /docs/assets/ and the document from /openapi.json, all on the same origin',
      data: /* @__PURE__ */ z.string(),
      contentTypes: ['text/html'],
    },
    302: {
      description:
        'asked as /docs/, sent to /docs (`Location: ../docs`), where the page’s relative URLs resolve',
    },
  },
});
