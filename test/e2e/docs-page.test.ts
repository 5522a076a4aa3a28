import { createServer } from 'node:http';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_ASSET_FILES } from '../../functions/api/docs/index';
import { endpoints } from '../../functions/api/index';
import { DELIVERY_HEADER_DOCS } from '../../functions/api/openapi';
import { EVENT_TYPES } from '../../functions/models/event-catalog';
import { exampleEvent } from '../../functions/models/event-docs';
import { listenOnLoopback } from '../../local/loopback-server';
import { launchChromium, saveScreenshot } from '../support/browser';
import { call, callRaw, contractViolations, expectError } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';

const STAGE = '/v1';

interface StageProxy {
  url: string;
  /** Answers the page got that the OpenAPI document does not give (the browser's calls are checked too). */
  violations: string[];
  close(): Promise<void>;
}

/**
 * API Gateway's stage prefix in front of the local API: `/v1/x` is forwarded as `/x`; anything outside the
 * stage is 404, so a page that builds a URL from the origin root instead of relative to itself breaks.
 */
async function startStageProxy(target: string): Promise<StageProxy> {
  const violations: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (!path.startsWith(`${STAGE}/`)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`outside the stage: ${path}`);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headersDistinct))
      if (value && !['host', 'connection'].includes(name)) headers[name] = value.join(', ');
    fetch(`${target}${path.slice(STAGE.length)}`, { method: req.method, headers, redirect: 'manual' })
      .then(async (response) => {
        // fetch has already undone any Content-Encoding (the API gzips answers over 1 KB).
        const body = Buffer.from(await response.arrayBuffer());
        violations.push(
          ...contractViolations({
            method: req.method ?? 'GET',
            path: path.slice(STAGE.length),
            status: response.status,
            contentType: response.headers.get('content-type'),
            body: body.toString('utf8'),
          }),
        );
        const answered: Record<string, string> = {};
        for (const [name, value] of response.headers)
          if (
            !['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding'].includes(
              name,
            )
          )
            answered[name] = value;
        res.writeHead(response.status, answered).end(body);
      })
      .catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, violations, close };
}

let api: TestApi;
let stage: StageProxy;
let browser: Browser;

beforeAll(async () => {
  api = await startTestApi('docs-page', { pollers: false });
  stage = await startStageProxy(api.url);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stage?.close();
  await api?.close();
});

/** What a page did besides rendering: every request, and every sign of trouble. */
interface PageRecord {
  requests: string[];
  problems: string[];
}

async function openPage(url: string): Promise<{ page: Page; record: PageRecord }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const record: PageRecord = { requests: [], problems: [] };
  page.on('request', (request) => record.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') record.problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => record.problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    record.problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) record.problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  return { page, record };
}

/** The summary line of each operation block `blocks` finds, as `METHOD path` (a webhook's path is its event type), sorted. */
async function summariesOf(blocks: Locator): Promise<string[]> {
  const summaries: string[] = [];
  for (const block of await blocks.all()) {
    const method = (await block.locator('.opblock-summary-method').textContent())?.trim().toUpperCase();
    const pathElement = block.locator('.opblock-summary-path');
    const path = (await pathElement.getAttribute('data-path')) ?? (await pathElement.textContent());
    summaries.push(`${method} ${path?.trim()}`);
  }
  return summaries.sort();
}

/** Waits for Swagger UI, opens every collapsed tag and returns the operations shown, as `METHOD /path`. */
async function renderedOperations(page: Page): Promise<string[]> {
  await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 20_000 });
  for (const closed of await page.locator('.opblock-tag-section:not(.is-open) .opblock-tag').all())
    await closed.click();
  // The endpoints' operations, grouped by tag (the webhooks have a section of their own).
  return summariesOf(page.locator('.opblock-tag-section .opblock'));
}

const expectedOperations = endpoints.map((e) => `${e.method} ${e.path}`).sort();

/** The webhooks Swagger UI shows under its "Webhooks" heading (OpenAPI 3.1), as `METHOD <event type>`. */
async function renderedWebhooks(page: Page): Promise<string[]> {
  const section = page.locator('.swagger-ui .webhooks');
  await section.locator('.opblock').first().waitFor({ timeout: 20_000 });
  expect((await section.locator('h2').first().textContent())?.trim()).toBe('Webhooks');
  return summariesOf(section.locator('.opblock'));
}

describe('GET /docs in a browser', () => {
  it.each([
    ['at the root', '', 'docs.png'],
    [`under a ${STAGE} stage prefix`, STAGE, 'docs-stage.png'],
  ])(
    'renders every endpoint of the endpoint list %s, from this origin only',
    async (_, prefix, screenshot) => {
      const base = prefix ? stage.url : api.url;
      const { page, record } = await openPage(`${base}${prefix}/docs`);
      try {
        expect(await renderedOperations(page)).toEqual(expectedOperations);
        // "Try it out" calls the API that served the page first, before the document's own servers.
        const servers = page.locator('.swagger-ui .servers select option');
        expect(await servers.first().getAttribute('value')).toBe(`${base}${prefix}`);
        await expect
          .poll(() => page.locator('.swagger-ui .info .title').textContent())
          .toContain('Delivery Route Service');
        await saveScreenshot(page, screenshot);

        const origin = new URL(base).origin;
        const elsewhere = record.requests.filter(
          (url) => !url.startsWith('data:') && new URL(url).origin !== origin,
        );
        expect(elsewhere, 'requests that left the origin').toEqual([]);
        const outsideStage = record.requests.filter(
          (url) => !url.startsWith('data:') && !new URL(url).pathname.startsWith(`${prefix}/`),
        );
        expect(outsideStage, 'requests outside the stage prefix').toEqual([]);
        expect(record.requests).toEqual(
          expect.arrayContaining([
            `${base}${prefix}/docs/assets/swagger-ui-bundle.js`,
            `${base}${prefix}/docs/assets/swagger-ui.css`,
            `${base}${prefix}/docs/assets/initializer.js`,
            `${base}${prefix}/openapi.json`,
          ]),
        );
        expect(record.problems).toEqual([]);
        expect(stage.violations).toEqual([]);
      } finally {
        await page.close();
      }
    },
    60_000,
  );

  it('renders every event type of the event catalog under Webhooks: its example body and every delivery header', async () => {
    const { page, record } = await openPage(`${api.url}/docs`);
    try {
      expect(await renderedWebhooks(page)).toEqual(EVENT_TYPES.map((type) => `POST ${type}`).sort());
      for (const type of EVENT_TYPES) {
        const block = page.locator('.swagger-ui .webhooks .opblock').filter({
          has: page.locator(`.opblock-summary-path[data-path="${type}"]`),
        });
        await block.locator('.opblock-summary').first().click();
        const body = block.locator('.opblock-body');
        await body.waitFor({ timeout: 20_000 });
        // The headers, each by name, and the example body (its event id is the example's own).
        const names = (await body.locator('.parameters .parameter__name').allTextContents()).map((name) =>
          name.replace(/\s|\*|required|deprecated/g, ''),
        );
        expect(names.sort(), type).toEqual(Object.keys(DELIVERY_HEADER_DOCS).sort());
        const example = exampleEvent(type);
        await expect
          .poll(async () => (await body.textContent()) ?? '', { timeout: 20_000 })
          .toContain(`"event_id": "${example.event_id}"`);
        expect(await body.textContent(), type).toContain(`"event": "${type}"`);
      }
      await saveScreenshot(page, 'docs-webhooks.png');
      expect(record.problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);

  it('notices an endpoint missing from the rendered page', async () => {
    // The same page, fed a document without one operation: the check above must see the gap.
    const document = (await call(api.url, 'GET', '/openapi.json')).body as unknown as {
      paths: Record<string, Record<string, unknown>>;
    };
    const dropped = endpoints[0];
    if (!dropped) throw new Error('the endpoint list is empty');
    delete document.paths[dropped.path]?.[dropped.method.toLowerCase()];
    const page = await browser.newPage();
    try {
      await page.route('**/openapi.json', (route) => route.fulfill({ json: document }));
      await page.goto(`${api.url}/docs`);
      const rendered = await renderedOperations(page);
      expect(expectedOperations.filter((operation) => !rendered.includes(operation))).toEqual([
        `${dropped.method} ${dropped.path}`,
      ]);
    } finally {
      await page.close();
    }
  }, 60_000);
});

describe('GET /docs over HTTP', () => {
  it('answers HTML with a same-origin content security policy and only relative URLs', async () => {
    const response = await callRaw(api.url, 'GET', '/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-eval');
    const html = response.text;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1] ?? '');
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url, url).toMatch(/^(docs\/assets\/[\w.-]+|data:.*)$/);
  });

  it('sends /docs/ back to /docs, keeping the stage prefix', async () => {
    const response = await callRaw(`${stage.url}${STAGE}`, 'GET', '/docs/', { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = response.headers.get('location') ?? '';
    expect(new URL(location, `${stage.url}${STAGE}/docs/`).href).toBe(`${stage.url}${STAGE}/docs`);
  });
});

const SERVED: [file: string, contentType: string, contains: string][] = [
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8', 'SwaggerUIBundle'],
  ['swagger-ui.css', 'text/css; charset=utf-8', '.swagger-ui'],
  ['initializer.js', 'text/javascript; charset=utf-8', 'SwaggerUIBundle('],
  ['swagger-ui-bundle.js.LICENSE.txt', 'text/plain; charset=utf-8', 'license'],
];

describe('GET /docs/assets/{file}', () => {
  it('is tested with every file of its allow-list', () => {
    expect(SERVED.map(([file]) => file).sort()).toEqual([...DOCS_ASSET_FILES].sort());
  });

  it.each(SERVED)(
    'serves %s as %s, cacheable, with a 304 for a matching ETag',
    async (file, contentType, contains) => {
      const response = await callRaw(api.url, 'GET', `/docs/assets/${file}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(contentType);
      expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const body = response.text;
      expect(body).toContain(contains);
      expect(body).not.toContain('sourceMappingURL'); // the maps are not served

      const etag = response.headers.get('etag');
      expect(etag).toMatch(/^".+"$/);
      const again = await callRaw(api.url, 'GET', `/docs/assets/${file}`, {
        headers: { 'If-None-Match': etag ?? '' },
      });
      expect(again.status).toBe(304);
    },
  );

  it.each([
    'swagger-ui.js',
    'index.html',
    'package.json',
    '..%2F..%2F..%2Fpackage.json',
    '%2E%2E%2Fopenapi.ts',
    '..%5Cpackage.json',
    'swagger-ui.css%00.js',
  ])('answers 404 with code 1007 for %s', async (file) => {
    const response = await call(api.url, 'GET', `/docs/assets/${file}`);
    expect(response.status).toBe(404);
    expect(expectError(response, 404, 1007)).not.toContain(decodeURIComponent(file));
  });
});
