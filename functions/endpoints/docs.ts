import * as z from 'zod';
import { defineEndpoint } from './define';

export const getOpenApiDocument = defineEndpoint({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  auth: 'none',
  handler: 'docs/openapi',
  summary: 'This OpenAPI 3.1 document (no envelope, no auth)',
  tag: 'Docs',
  access: {},
  request: {},
  responses: { 200: { description: 'the OpenAPI document', data: z.record(z.string(), z.unknown()) } },
  errorCodes: [],
  envelope: false,
});

export const getDocsPage = defineEndpoint({
  operationId: 'getDocsPage',
  method: 'GET',
  path: '/docs',
  auth: 'none',
  handler: 'docs/page',
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

/** The files `GET /docs/assets/{file}` serves; anything else is 404 (code 1007), so no path reaches the disk. */
export const DOCS_ASSET_FILES = [
  'swagger-ui-bundle.js',
  // The bundle's license comment points here, beside it.
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css',
  'initializer.js',
] as const;
export type DocsAssetFile = (typeof DOCS_ASSET_FILES)[number];

export const getDocsAsset = defineEndpoint({
  operationId: 'getDocsAsset',
  method: 'GET',
  path: '/docs/assets/{file}',
  auth: 'none',
  handler: 'docs/asset',
  summary: 'A script, style sheet or license text of the API reference page (no envelope, no auth)',
  tag: 'Docs',
  access: {},
  request: { params: z.object({ file: z.enum(DOCS_ASSET_FILES) }) },
  responses: {
    200: {
      description: 'the file: a script, a style sheet or a license text',
      data: z.string(),
      contentTypes: ['text/javascript', 'text/css', 'text/plain'],
    },
  },
  errorCodes: [1007],
  envelope: false,
  // Swagger UI's files are read from swagger-ui-dist at run time, not bundled into the handler's code.
  bundledFiles: [
    'swagger-ui-dist/package.json',
    'swagger-ui-dist/swagger-ui-bundle.js',
    'swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt',
    'swagger-ui-dist/swagger-ui.css',
  ],
});

export const docsEndpoints = [getOpenApiDocument, getDocsPage, getDocsAsset];
