import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorResponse } from '../../../shared/envelope';
import { ERROR_CODES } from '../../../shared/error-codes';
import { logger, observed } from '../../../shared/observability';
import { decodePathParameters } from '../../../shared/request-parsing';
import type { DocsAssetFile } from '../schemas';
import { getDocsAsset } from './endpoint';

/**
 * The page's own script (the page allows no inline script). It fetches the document beside the page
 * (`openapi.json` relative to /docs, so /v1/openapi.json under a /v1 stage) and renders it.
 */
const INITIALIZER = `'use strict';
(() => {
  const root = document.getElementById('swagger-ui');
  const documentUrl = new URL('openapi.json', document.baseURI).href;
  fetch(documentUrl, { headers: { Accept: 'application/json' } })
    .then((response) => {
      if (!response.ok) throw new Error('GET ' + documentUrl + ' answered ' + response.status);
      return response.json();
    })
    .then((spec) => {
      // "Try it out" calls the API the page was served by, stage prefix included, unless another is picked.
      const here = new URL('.', document.baseURI).href.replace(/\\/$/, '');
      spec.servers = [{ url: here, description: 'the API serving this page' }].concat(spec.servers || []);
      window.ui = SwaggerUIBundle({
        spec,
        dom_id: '#swagger-ui',
        // The default validator badge loads an image from validator.swagger.io: nothing leaves the origin.
        validatorUrl: null,
        docExpansion: 'list',
        deepLinking: true,
      });
    })
    .catch((error) => {
      root.textContent = 'The API document could not be loaded: ' + error.message;
      console.error(error);
    });
})();
`;

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** Where each served file comes from: a file of swagger-ui-dist (read from disk) or a constant above. */
const SOURCES: Record<DocsAssetFile, { contentType: string; read: () => Promise<string> }> = {
  'swagger-ui-bundle.js': {
    contentType: JAVASCRIPT,
    read: () => readBundledFile('swagger-ui-dist/swagger-ui-bundle.js'),
  },
  'swagger-ui-bundle.js.LICENSE.txt': {
    contentType: 'text/plain; charset=utf-8',
    read: () => readBundledFile('swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt'),
  },
  'swagger-ui.css': {
    contentType: 'text/css; charset=utf-8',
    read: () => readBundledFile('swagger-ui-dist/swagger-ui.css'),
  },
  'initializer.js': { contentType: JAVASCRIPT, read: async () => INITIALIZER },
};

/** Revalidated hourly (a cheap 304 through the ETag): file names carry no version. */
const ASSET_CACHE_CONTROL = 'public, max-age=3600';

/** Only files the endpoint declares: CDK copies exactly those beside the Lambda bundle. */
type BundledFile = (typeof getDocsAsset.bundledFiles)[number];

/**
 * The node_modules directory holding swagger-ui-dist, found from this module the same way everywhere:
 * locally the repository's; on Lambda the one beside the bundle, where CDK copies the endpoint's
 * `bundledFiles`. Nothing of the package is bundled into the code.
 */
let nodeModulesDir: string | undefined;

async function readBundledFile(file: BundledFile): Promise<string> {
  nodeModulesDir ??= dirname(dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')));
  const text = await readFile(join(nodeModulesDir, file), 'utf8');
  // The source maps are not served: drop the comment that would send developer tools looking for them.
  return text.replace(/\n?\/[*/]# sourceMappingURL=[^\n]*\s*$/, '\n');
}

interface LoadedAsset {
  contentType: string;
  body: string;
  etag: string;
}

// Read once per cold start and kept: the files only change with a deployment.
const loaded = new Map<DocsAssetFile, Promise<LoadedAsset>>();

function load(file: DocsAssetFile): Promise<LoadedAsset> {
  let asset = loaded.get(file);
  if (!asset) {
    const { contentType, read } = SOURCES[file];
    asset = read().then((body) => ({
      contentType,
      body,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    }));
    // A failed read is not kept: the next request tries again.
    asset.catch(() => loaded.delete(file));
    loaded.set(file, asset);
  }
  return asset;
}

function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {}))
    if (key.toLowerCase() === wanted) return value ?? undefined;
  return undefined;
}

/** The file asked for, its name decoded once as every path parameter is; undefined for a malformed escape. */
function fileParameter(event: APIGatewayProxyEvent) {
  try {
    return getDocsAsset.request.params.safeParse(decodePathParameters(event.pathParameters));
  } catch {
    return undefined;
  }
}

/** Serves one file of the fixed list; any other name is an unknown endpoint (nothing else is read). */
async function serve(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const parsed = fileParameter(event);
  if (!parsed?.success) {
    const { httpStatus, code } = ERROR_CODES.UNKNOWN_ENDPOINT;
    return errorResponse(httpStatus, code, 'no such file under /docs/assets/');
  }
  let asset: LoadedAsset;
  try {
    asset = await load(parsed.data.file);
  } catch (error) {
    logger.error('docs asset unreadable', { file: parsed.data.file, error });
    const { httpStatus, code } = ERROR_CODES.INTERNAL;
    return errorResponse(httpStatus, code, 'internal error');
  }
  const headers = {
    'Content-Type': asset.contentType,
    'Cache-Control': ASSET_CACHE_CONTROL,
    ETag: asset.etag,
    'X-Content-Type-Options': 'nosniff',
  };
  const ifNoneMatch = header(event, 'If-None-Match');
  if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag))
    return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers, body: asset.body };
}

export const handler = Object.assign(observed(serve), { endpoint: getDocsAsset });
