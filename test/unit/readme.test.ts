import { readdirSync, readFileSync } from 'node:fs';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ATTEMPT_ANALYTICS_PAGE } from '../../functions/api/analytics/index';
import { DRIVER_ROUTE_WAYPOINTS_PAGE } from '../../functions/api/driver-app/index';
import { ROUTE_PAGE_SIZES } from '../../functions/api/routes/index';
import { DELIVERY_ATTEMPTS_PAGE } from '../../functions/api/webhooks/index';
import { newWebhookSecret, signatureHeaders } from '../../functions/domain/webhook-http';
import { EVENT_TYPES } from '../../functions/models/event-catalog';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { PAGE_BYTE_BUDGET } from '../../functions/shared/limits';
import { QUEUES, RESOURCE_ENV } from '../../functions/shared/resources';

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

type Verify = (secret: string, rawBody: string, headers: Record<string, string>) => unknown;

/** The README's verifier, run as written (its `standardwebhooks` import is given to it). */
function readmeVerifier(): Verify {
  const code = codeBlockAfter('### Verifying webhook signatures', 'js');
  const importLine = "import { Webhook } from 'standardwebhooks';";
  expect(code).toContain(importLine);
  const body = code.replace(importLine, '');
  // Three lines: the import, the verifier, the check.
  expect(
    code
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== ''),
  ).toHaveLength(3);
  return (secret, rawBody, headers) =>
    new Function('Webhook', 'process', 'rawBody', 'req', `${body}\nreturn event;`)(
      Webhook,
      { env: { WEBHOOK_SECRET: secret } },
      rawBody,
      { headers },
    );
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

  it('names every event type of the event catalog where it lists the webhook event types', () => {
    const bullet = /^- \*\*Event types\.\*\*(.*\n {2}.*)+/m.exec(readme)?.[0] ?? '';
    for (const type of EVENT_TYPES) expect(bullet, type).toMatch(new RegExp(`\\b${type}\\b`));
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
      RESOURCE_ENV.table,
      RESOURCE_ENV.bucket,
      ...Object.values(QUEUES).flatMap((queue) => [queue.urlEnv, queue.deadLetterUrlEnv]),
    ];
    // AWS_* variables come from the Lambda runtime (or the SDK's own configuration), not from us.
    const ours = [...new Set([...read, ...resources])].filter((name) => !name.startsWith('AWS_'));
    expect(ours).toContain('WEBHOOK_RETRY_DELAYS_SECONDS');
    for (const name of ours) expect(readme, `environment variable ${name}`).toContain(`\`${name}\``);
  });

  it("gives a webhook signature check that accepts the service's signatures and nothing else", () => {
    const verify = readmeVerifier();
    const secret = newWebhookSecret();
    const other = newWebhookSecret();
    const body =
      '{"event":"PING","hook_timestamp_millis":1795438800000,"event_id":"evt_1","name":"Zoë Ødegård"}';
    const now = Date.now();
    // As a receiver gets them: lower-case names.
    const signed = (secrets: string[], at: number, id = 'evt_1') =>
      Object.fromEntries(
        Object.entries(signatureHeaders(secrets, id, at, body)).map(([name, value]) => [
          name.toLowerCase(),
          value,
        ]),
      );
    const cases: [string, Record<string, string>, string, string, boolean][] = [
      ['as signed', signed([secret], now), body, secret, true],
      ['signed 4 minutes ago', signed([secret], now - 4 * 60_000), body, secret, true],
      ['during a rotation, with the new secret', signed([secret, other], now), body, secret, true],
      ['during a rotation, with the previous secret', signed([other, secret], now), body, secret, true],
      ['signed 6 minutes ago', signed([secret], now - 6 * 60_000), body, secret, false],
      ['another body', signed([secret], now), body.replace('PING', 'PONG'), secret, false],
      ['another secret', signed([other], now), body, secret, false],
      ['another webhook-id', { ...signed([secret], now), 'webhook-id': 'evt_2' }, body, secret, false],
      ['no signature', { ...signed([secret], now), 'webhook-signature': '' }, body, secret, false],
      ['no headers', {}, body, secret, false],
    ];
    for (const [name, headers, received, key, valid] of cases) {
      const run = () => verify(key, received, headers);
      if (valid) expect(run(), name).toEqual(JSON.parse(received));
      else expect(run, name).toThrow(WebhookVerificationError);
    }
  });
});
