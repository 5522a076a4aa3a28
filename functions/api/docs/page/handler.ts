import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { observed } from '../../../shared/observability';
import { getDocsPage } from './endpoint';

/**
 * Same-origin scripts and styles only: no inline script, no eval, no inline style sheets or style
 * attributes (Swagger UI 5 sets its styles through the DOM, which the policy allows; the browser test
 * fails on any violation). data: images for the icons its style sheet embeds. Nothing may frame the page.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

// Every URL is relative to the page, so the same page works at /docs and under a stage prefix: from
// /v1/docs, `docs/assets/x` is /v1/docs/assets/x (and the initializer fetches /v1/openapi.json).
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Delivery Route Service API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/initializer.js"></script>
</body>
</html>
`;

/** Serves the API reference page: Swagger UI, from files this service serves itself (no CDN). */
async function serve(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  // From /docs/ the relative URLs would point under /docs/docs/: send the browser to /docs instead (a
  // relative Location, so any stage prefix or base path is kept).
  if (event.path?.endsWith('/')) {
    return { statusCode: 302, headers: { Location: '../docs', 'Cache-Control': 'no-cache' }, body: '' };
  }
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      // The page names its assets without a version: make browsers revalidate it on every visit.
      'Cache-Control': 'no-cache',
    },
    body: PAGE,
  };
}

export const handler = Object.assign(observed(serve), { endpoint: getDocsPage });
