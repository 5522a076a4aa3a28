import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/api/index';
import { buildOpenApiDocument } from '../../functions/api/openapi';

const CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));
const CLI = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'redocly-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
}

/** Runs `redocly lint` on the document with the repository's config, offline (no usage data, no update check). */
async function lint(document: unknown, name: string): Promise<{ errors: number; problems: LintProblem[] }> {
  const file = join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(document, null, 2));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [CLI, 'lint', file, '--config', CONFIG, '--format', 'json'],
    {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' })); // exits 1 on errors
  const report = JSON.parse(stdout) as { totals: { errors: number }; problems: LintProblem[] };
  return { errors: report.totals.errors, problems: report.problems };
}

/** The rules redocly.yaml sets to `warn`, each with the comment that says why its warnings stay. */
const explainedWarnings = [...readFileSync(CONFIG, 'utf8').matchAll(/^ {2}([\w-]+): warn\b/gm)].map(
  (match) => match[1],
);

describe('Redocly’s recommended rules on the OpenAPI document', () => {
  it('find no error, and warn only where redocly.yaml explains why', async () => {
    const { errors, problems } = await lint(buildOpenApiDocument(endpoints), 'openapi');
    expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(errors).toBe(0);
    const unexplained = problems.filter((problem) => !explainedWarnings.includes(problem.ruleId));
    expect(unexplained).toEqual([]);
  });

  it('fail a document without servers or with an unsecured webhook (the check can fail)', async () => {
    const document = buildOpenApiDocument(endpoints) as unknown as {
      servers?: unknown;
      webhooks: Record<string, { post: { security?: unknown } }>;
    };
    delete document.servers;
    for (const webhook of Object.values(document.webhooks)) delete webhook.post.security;
    const { problems } = await lint(document, 'broken');
    const errors = problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => problem.ruleId);
    expect(new Set(errors)).toEqual(new Set(['no-empty-servers', 'security-defined']));
  });
});
