import * as z from 'zod';
import { defineEndpoint } from '../../define';

export const getDocsPage = defineEndpoint({
  operationId: 'getDocsPage',
  method: 'GET',
  path: '/docs',
  auth: 'none',
  module: import.meta.url,
  summary: 'The API reference: an HTML page rendering /openapi.json with Swagger UI (no envelope, no auth)',
  tag: 'Docs',
  access: {},
  request: {},
  responses: {
    200: {
      description:
        'the page; it loads its scripts and styles from /docs/assets/ and the document from /openapi.json, all on the same origin',
      data: z.string(),
      contentTypes: ['text/html'],
    },
  },
  errorCodes: [],
  envelope: false,
});
