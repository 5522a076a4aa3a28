import { createHmac, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from '../../functions/domain/webhook-http';
import { ATTEMPT_ANALYTICS_PAGE } from '../../functions/endpoints/analytics';
import { DRIVER_ROUTE_WAYPOINTS_PAGE } from '../../functions/endpoints/driver-app';
import { ROUTE_PAGE_SIZES } from '../../functions/endpoints/routes';
import { DELIVERY_ATTEMPTS_PAGE } from '../../functions/endpoints/webhooks';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { PAGE_BYTE_BUDGET } from '../../functions/shared/limits';
import { BUCKET_NAME_ENV, QUEUES, TABLE_NAME_ENV } from '../../functions/shared/resources';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const repoFile = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The body of the first fenced block of `language` after `heading`. */
function codeBlockAfter(heading: string, language: string): string {
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, `README has no heading '${heading}'`).toBeGreaterThanOrEqual(0);
  const block = readme.slice(start).match(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``));
  expect(block, `no \`\`\`${language} block after '${heading}'`).not.toBeNull();
  return block?.[1] ?? '';
}

type Verify = (
  secret: string,
  header: string,
  rawBody: Buffer,
  toleranceMs?: number,
  now?: number,
) => boolean;

/** The README's verifier, run as written (its `node:crypto` import is given to it). */
function readmeVerifier(): Verify {
  const code = codeBlockAfter('### Verifying webhook signatures', 'js');
  const importLine = "import { createHmac, timingSafeEqual } from 'node:crypto';";
  expect(code).toContain(importLine);
  const body = code.replace(importLine, '').replace(/^export /m, '');
  return new Function('createHmac', 'timingSafeEqual', `${body}\nreturn verifySignature;`)(
    createHmac,
    timingSafeEqual,
  ) as Verify;
}

describe('README', () => {
  it('lists every error code the service answers with, with its HTTP status', () => {
    const rows = [...readme.matchAll(/^\| (\d{4}) +\| (\d{3}) +\|/gm)].map(
      (match) => `${match[1]} ${match[2]}`,
    );
    const codes = Object.values(ERROR_CODES).map((entry) => `${entry.code} ${entry.httpStatus}`);
    expect(rows.sort()).toEqual(codes.sort());
  });

  it('gives the page sizes and the page byte budget the endpoints declare', () => {
    const rows = (count: number) => count.toLocaleString('en-US');
    const sizes: [string, string][] = [
      ['/invoices', rows(ROUTE_PAGE_SIZES.invoiceRows.maxLimit)],
      ['/waypoints', rows(ROUTE_PAGE_SIZES.waypoints.maxLimit)],
      ['/accounting', rows(ROUTE_PAGE_SIZES.accountingRecords.maxLimit)],
      ['/find_by_date/', rows(ROUTE_PAGE_SIZES.routesOfDate.maxLimit)],
      ['/driver/routes', rows(DRIVER_ROUTE_WAYPOINTS_PAGE.maxLimit)],
      ['/analytics/attempts', rows(ATTEMPT_ANALYTICS_PAGE.maxLimit)],
      [
        '/deliveries',
        `${rows(DELIVERY_ATTEMPTS_PAGE.defaultLimit)}, up to ${rows(DELIVERY_ATTEMPTS_PAGE.maxLimit)}`,
      ],
    ];
    for (const [path, size] of sizes) {
      const row = readme.split('\n').find((line) => line.startsWith('| `GET ') && line.includes(path));
      expect(row, `README paging row of ${path}`).toMatch(new RegExp(`\\| ${size} \\|$`));
    }
    expect(readme).toContain(`once its rows reach ${PAGE_BYTE_BUDGET / (1024 * 1024)} MiB`);
  });

  it('gives the set-up and test commands CI runs', () => {
    for (const command of ['npm install', 'npm start', 'npm test']) expect(readme).toContain(command);
  });

  it('documents every CDK context value the app reads', () => {
    const keys = [...repoFile('lib/delivery-routes.ts').matchAll(/Context\(app, '(\w+)'\)/g)].map(
      (match) => match[1],
    );
    expect(keys).toContain('alarmEmail');
    for (const key of keys) expect(readme, `context value ${key}`).toContain(`| \`${key}\` |`);
  });

  it('documents every environment variable the functions read', () => {
    const sources = readdirSync(new URL('../../functions/', import.meta.url), { recursive: true })
      .map(String)
      .filter((path) => path.endsWith('.ts'))
      .map((path) => repoFile(`functions/${path}`));
    const read = sources.flatMap((source) =>
      [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((match) => match[1] as string),
    );
    const resources = [
      TABLE_NAME_ENV,
      BUCKET_NAME_ENV,
      ...Object.values(QUEUES).flatMap((queue) => [queue.urlEnv, queue.deadLetterUrlEnv]),
    ];
    // AWS_* variables come from the Lambda runtime (or the SDK's own configuration), not from us.
    const ours = [...new Set([...read, ...resources])].filter((name) => !name.startsWith('AWS_'));
    expect(ours).toContain('WEBHOOK_RETRY_DELAYS_SECONDS');
    for (const name of ours) expect(readme, `environment variable ${name}`).toContain(`\`${name}\``);
  });

  it("gives a webhook signature check that accepts the service's signatures and nothing else", () => {
    const verify = readmeVerifier();
    const secret = 'whsec_readme-test';
    const body = '{"event":"PING","hook_timestamp_millis":1795438800000,"name":"Zoë Ødegård"}';
    const now = 1_795_438_800_000;
    const cases: [string, string, string, boolean][] = [
      ['as signed', signatureHeader(secret, now, body), body, true],
      ['signed 4 minutes ago', signatureHeader(secret, now - 4 * 60_000, body), body, true],
      ['signed 6 minutes ago', signatureHeader(secret, now - 6 * 60_000, body), body, false],
      ['another body', signatureHeader(secret, now, body), body.replace('PING', 'PONG'), false],
      ['another secret', signatureHeader('whsec_other', now, body), body, false],
      ['no header', '', body, false],
      ['no v1', `t=${now}`, body, false],
    ];
    for (const [name, header, received, valid] of cases) {
      expect(verify(secret, header, Buffer.from(received, 'utf8'), undefined, now), name).toBe(valid);
      // The service's own verifier (functions/domain/webhook-http.ts) agrees.
      expect(verifySignature(secret, header, received, { now }), name).toBe(valid);
    }
  });
});
