import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ATTEMPT_ANALYTICS_PAGE } from '../../functions/api/analytics/index';
import { bundled, type EndpointDefinition, type MethodThrottling } from '../../functions/api/define';
import { DRIVER_ROUTE_WAYPOINTS_PAGE } from '../../functions/api/driver-app/index';
import { endpoints } from '../../functions/api/index';
import { ROUTE_PAGE_SIZES } from '../../functions/api/routes/index';
import { DELIVERY_ATTEMPTS_PAGE } from '../../functions/api/webhooks/index';
import { SUBSCRIBABLE_EVENTS } from '../../functions/domain/webhook-events';
import { newWebhookSecret, signatureHeaders } from '../../functions/domain/webhook-http';
import * as channels from '../../functions/models/channels';
import { allChannels } from '../../functions/models/channels';
import { reservedIdsOf } from '../../functions/models/path-ids';
import { ERROR_CODES, type ErrorCodeName } from '../../functions/shared/error-codes';
import { ERROR_MEANINGS } from '../../functions/shared/error-meanings';
import { PAGE_BYTE_BUDGET } from '../../functions/shared/limits';
import { RESOURCE_ENV } from '../../functions/shared/resources';
import { consumers } from '../../functions/workers/index';
import { stageMethodLimit } from '../../lib/api-stack';
import { DEFAULT_CONFIG } from '../../lib/delivery-routes';
import { sliceOf } from '../../lib/slices';

/**
 * The repository's own documents (README, CONTRIBUTING, docs/) against the code and against each other
 * (the README's own checks are in readme.test.ts).
 *
 * docs/api.md holds tables generated from the code between `<!-- generated: <name> -->` and
 * `<!-- end generated -->`. After changing the endpoint list or the error codes, rewrite them with
 * `UPDATE_DOCS=1 npx vitest run test/unit/docs.test.ts` and review the diff.
 */

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

const AUTH_NAMES: Record<EndpointDefinition['auth'], string> = {
  apiKey: 'API key',
  driverToken: 'driver token',
  none: 'none',
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * One row per endpoint, in the endpoint list's order; an endpoint served under several methods (PATCH and
 * PUT) is one row.
 */
function endpointTable(): string {
  const rows = new Map<string, { methods: string[]; endpoint: EndpointDefinition }>();
  for (const endpoint of endpoints) {
    const key = `${endpoint.path} ${sliceOf(endpoint.module).name} ${endpoint.summary}`;
    const row = rows.get(key);
    if (row) row.methods.push(endpoint.method);
    else rows.set(key, { methods: [endpoint.method], endpoint });
  }
  const lines = [
    '| Method | Path | Auth | Success | Codes of its own | Per account | All callers | What it does |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const limit = ({ rateLimit, burstLimit }: MethodThrottling) => `${rateLimit}/s, burst ${burstLimit}`;
  for (const { methods, endpoint } of rows.values()) {
    const codes = [...new Set(endpoint.errorCodes)].sort((a, b) => a - b);
    // The defaults of a deployment (lib/delivery-routes.ts): the usage plan's, the method's own, the stage's.
    const perAccount =
      endpoint.auth !== 'apiKey'
        ? ''
        : limit(
            endpoint.throttling ?? {
              rateLimit: DEFAULT_CONFIG.accountThrottlingRateLimit,
              burstLimit: DEFAULT_CONFIG.accountThrottlingBurstLimit,
            },
          );
    const allCallers = limit(stageMethodLimit(endpoint, DEFAULT_CONFIG));
    lines.push(
      `| ${methods.join(', ')} | \`${endpoint.path}\` | ${AUTH_NAMES[endpoint.auth]} | ` +
        `${Object.keys(bundled(endpoint.responses)).join(', ')} | ${codes.join(', ')} | ${perAccount} | ${allCallers} | ` +
        `${cell(endpoint.summary)} |`,
    );
  }
  return lines.join('\n');
}

function errorCodeTable(): string {
  const lines = ['| Code | HTTP | Name | Meaning |', '| --- | --- | --- | --- |'];
  const entries = Object.entries(ERROR_CODES).sort(([, a], [, b]) => a.code - b.code);
  for (const [name, { code, httpStatus }] of entries) {
    lines.push(`| ${code} | ${httpStatus} | \`${name}\` | ${cell(ERROR_MEANINGS[name as ErrorCodeName])} |`);
  }
  return lines.join('\n');
}

/** The ids refused at creation because a fixed segment of another path stands in their place. */
function reservedIdTable(): string {
  const lines = ['| Path parameter | Refused id | Fixed segment of |', '| --- | --- | --- |'];
  for (const { parameter, segment, path } of reservedIdsOf(endpoints.map((endpoint) => endpoint.path))) {
    lines.push(`| \`{${parameter}}\` | \`${segment}\` | \`${path}\` |`);
  }
  return lines.join('\n');
}

const GENERATED: Record<string, () => string> = {
  endpoints: endpointTable,
  'error-codes': errorCodeTable,
  'reserved-ids': reservedIdTable,
};

const GENERATED_BLOCK = /(<!-- generated: ([\w-]+) -->\n)([\s\S]*?)(<!-- end generated -->)/g;

/** docs/api.md with every generated block rendered from the code as it is now. */
function regenerated(text: string): string {
  return text.replace(GENERATED_BLOCK, (_all, start: string, name: string, _old: string, end: string) => {
    const render = GENERATED[name];
    if (!render) throw new Error(`docs/api.md: no generator for the block '${name}'`);
    return `${start}${render()}\n${end}`;
  });
}

/** The rows of the first table after `marker`, as lists of cells. */
function tableAfter(text: string, marker: string): string[][] {
  const start = text.indexOf(marker);
  expect(start, `no '${marker}'`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start + marker.length).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > first && !line.startsWith('|'));
  const table = lines.slice(first, end < 0 ? undefined : end);
  return table.slice(2).map((line) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((part) => part.trim()),
  );
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings, numbered as GitHub numbers repeated ones. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = text.replace(/^```[\s\S]*?^```/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const anchor = anchorOf(match[1] ?? '');
    const count = seen.get(anchor) ?? 0;
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
    seen.set(anchor, count + 1);
  }
  return anchors;
}

describe('docs/api.md', () => {
  const api = read('docs/api.md');

  if (process.env.UPDATE_DOCS) writeFileSync(join(ROOT, 'docs/api.md'), regenerated(api));

  it.each(Object.keys(GENERATED))('holds the %s table as the code makes it', (name) => {
    const block = [...api.matchAll(GENERATED_BLOCK)].find((match) => match[2] === name);
    expect(block, `no generated block '${name}'`).toBeDefined();
    expect(
      block?.[3],
      `docs/api.md's ${name} table is out of date: UPDATE_DOCS=1 npx vitest run test/unit/docs.test.ts`,
    ).toBe(`${GENERATED[name]?.()}\n`);
  });

  it('lists every endpoint of the endpoint list', () => {
    const paths = tableAfter(api, '<!-- generated: endpoints -->').map((row) => `${row[0]} ${row[1]}`);
    for (const endpoint of endpoints) {
      expect(
        paths.some((row) => row.includes(endpoint.method) && row.endsWith(`\`${endpoint.path}\``)),
        `${endpoint.method} ${endpoint.path}`,
      ).toBe(true);
    }
  });

  it('describes every event type a webhook can receive, and PING', async () => {
    const types = tableAfter(api, '<!-- event types -->').map((row) => row[0]);
    expect(types.sort()).toEqual([...SUBSCRIBABLE_EVENTS, 'PING'].map((type) => `\`${type}\``).sort());
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
    const paging = tableAfter(api, '## 6. Paging');
    for (const [path, size] of sizes) {
      const row = paging.find((cells) => cells[0]?.startsWith('`GET ') && cells[0].includes(path));
      expect(row?.[2], `docs/api.md paging row of ${path}`).toBe(size);
    }
    expect(api).toContain(`once its rows reach ${PAGE_BYTE_BUDGET / (1024 * 1024)} MiB`);
  });
});

describe('docs/configuration.md', () => {
  const configuration = read('docs/configuration.md');

  it('documents every CDK context value the app reads', () => {
    const keys = [...read('lib/delivery-routes.ts').matchAll(/Context\(app, '(\w+)'\)/g)].map(
      (match) => match[1],
    );
    expect(keys).toContain('alarmEmail');
    for (const key of keys) expect(configuration, `context value ${key}`).toContain(`| \`${key}\` |`);
  });

  it('documents every environment variable the functions read', () => {
    const sources = readdirSync(join(ROOT, 'functions'), { recursive: true })
      .map(String)
      .filter((path) => path.endsWith('.ts'))
      .map((path) => read(`functions/${path}`));
    const readByFunctions = sources.flatMap((source) =>
      [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((match) => match[1] as string),
    );
    const resources = [
      ...Object.values(RESOURCE_ENV),
      ...allChannels.flatMap((channel) => [channel.urlEnv, channel.deadLetterUrlEnv]),
    ];
    // AWS_* variables come from the Lambda runtime (or the SDK's own configuration), not from us.
    const ours = [...new Set([...readByFunctions, ...resources])].filter((name) => !name.startsWith('AWS_'));
    expect(ours).toContain('WEBHOOK_RETRY_DELAYS_SECONDS');
    for (const name of ours) expect(configuration, `environment variable ${name}`).toContain(`\`${name}\``);
  });
});

describe('docs/deploy.md', () => {
  const deploy = read('docs/deploy.md');

  it('states the Lambda concurrency the queue consumers take at most, and each one’s share', () => {
    const total = consumers.reduce((sum, consumer) => sum + consumer.maxConcurrency, 0);
    expect(deploy).toContain(`The queue consumers run up to ${total} Lambda invocations at once`);
    const shares = /\(each event source mapping's maximum concurrency: ([^)]*)\)/.exec(
      deploy.replace(/\n/g, ' '),
    )?.[1];
    const stated = [...(shares ?? '').matchAll(/(\d+)( each)?/g)].map((match) => Number(match[1]));
    expect(stated.length).toBeGreaterThan(0);
    expect(new Set(stated)).toEqual(new Set(consumers.map((consumer) => consumer.maxConcurrency)));
  });

  it('states after how many receives a throttled batch may move to a DLQ', () => {
    const tens: string[] = [channels.deliveries.name, channels.imports.name, channels.analytics.name];
    expect(deploy.replace(/\n/g, ' ')).toContain(
      'webhook deliveries, imports and analytics exports after 10 receives, route optimizations after 3, the others after 5',
    );
    for (const channel of allChannels)
      expect(channel.maxReceiveCount).toBe(
        tens.includes(channel.name) ? 10 : channel.name === channels.optimizations.name ? 3 : 5,
      );
  });
});

type Verify = (secret: string, rawBody: string, headers: Record<string, string>) => unknown;

/** docs/webhook-signatures.md's verifier, run as written (its `standardwebhooks` import is given to it). */
function documentedVerifier(): Verify {
  const code = /```js\n([\s\S]*?)```/.exec(read('docs/webhook-signatures.md'))?.[1] ?? '';
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

describe('docs/webhook-signatures.md', () => {
  it("gives a webhook signature check that accepts the service's signatures and nothing else", () => {
    const verify = documentedVerifier();
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

describe('README, CONTRIBUTING and docs/', () => {
  it.each(DOCUMENTS)('%s points at nothing outside the repository', (path) => {
    // The team's folder beside the clone (`../shared/...`); `../../shared/` in a code example is the code's own.
    expect(read(path)).not.toMatch(/(?<![./])\.\.\/shared\b/);
  });

  it.each(DOCUMENTS)('%s links only to files and headings that exist', (path) => {
    const text = read(path);
    const broken: string[] = [];
    for (const match of text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [file = '', anchor] = target.split('#');
      const resolved = file === '' ? path : normalize(join(dirname(path), file));
      if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) {
        broken.push(`${target}: no file ${resolved}`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${resolved}`);
      }
    }
    expect(broken).toEqual([]);
  });

  /** The repository paths a document names in code spans (`functions/shared/limits.ts`). */
  const pathsNamedIn = (path: string) =>
    [...read(path).matchAll(/`((?:bin|bench|docs|functions|lib|local|test|\.ci)\/[\w./-]*\w)`/g)].map(
      (match) => match[1] ?? '',
    );

  it('finds the repository paths a document names', () => {
    expect(pathsNamedIn('CONTRIBUTING.md')).toContain('functions/shared/error-codes.ts');
  });

  it.each(DOCUMENTS)('%s names only repository paths that exist', (path) => {
    expect(pathsNamedIn(path).filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it('CONTRIBUTING gives every check CI runs', () => {
    const contributing = read('CONTRIBUTING.md');
    const checks = read('.ci/run')
      .split('\n')
      .filter((line) => /^(npm|npx) /.test(line))
      // A step run in the background beside another (`… &`) is the same check.
      .map((line) => line.replace(/\s*&$/, ''));
    expect(checks).toContain('npm test');
    for (const check of checks) expect(contributing, check).toContain(check);
  });
});
