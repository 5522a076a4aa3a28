import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EndpointDefinition } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import { SUBSCRIBABLE_EVENTS } from '../../functions/domain/webhook-events';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { sliceOf } from '../../lib/slices';

/**
 * The repository's own documents (README, CONTRIBUTING, docs/) against the code and against each other.
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
    '| Method | Path | Auth | Success | Codes of its own | Throttling | What it does |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const { methods, endpoint } of rows.values()) {
    const codes = [...new Set(endpoint.errorCodes)].sort((a, b) => a - b);
    const throttling = endpoint.throttling
      ? `${endpoint.throttling.rateLimit}/s, burst ${endpoint.throttling.burstLimit}`
      : '';
    lines.push(
      `| ${methods.join(', ')} | \`${endpoint.path}\` | ${AUTH_NAMES[endpoint.auth]} | ` +
        `${Object.keys(endpoint.responses).join(', ')} | ${codes.join(', ')} | ${throttling} | ` +
        `${cell(endpoint.summary)} |`,
    );
  }
  return lines.join('\n');
}

function errorCodeTable(): string {
  const lines = ['| Code | HTTP | Name | Meaning |', '| --- | --- | --- | --- |'];
  const entries = Object.entries(ERROR_CODES).sort(([, a], [, b]) => a.code - b.code);
  for (const [name, { code, httpStatus, meaning }] of entries) {
    lines.push(`| ${code} | ${httpStatus} | \`${name}\` | ${cell(meaning)} |`);
  }
  return lines.join('\n');
}

const GENERATED: Record<string, () => string> = {
  endpoints: endpointTable,
  'error-codes': errorCodeTable,
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

  it.each(DOCUMENTS.filter((path) => path !== 'README.md'))(
    '%s names only repository paths that exist',
    (path) => {
      const named = [
        ...read(path).matchAll(/`((?:bin|bench|docs|functions|lib|local|test|\.ci)\/[\w./-]*\w)`/g),
      ].map((match) => match[1] ?? '');
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
    },
  );

  it('CONTRIBUTING gives every check CI runs', () => {
    const contributing = read('CONTRIBUTING.md');
    const checks = read('.ci/run')
      .split('\n')
      .filter((line) => /^(npm|npx) /.test(line));
    expect(checks).toContain('npm test');
    for (const check of checks) expect(contributing, check).toContain(check);
  });
});
