import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodeScript } from '../../bench/node-script';
import { LAMBDA_BUNDLE, LAMBDA_ESBUILD_OPTIONS } from '../../lib/bundling';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { type CfnResource, logicalIdOf, resourcesOf, synthesize } from '../cdk/synth';

/**
 * Every function's production bundle loads with exactly the environment its CDK definition gives it, in a
 * process that looks like Lambda (AWS_EXECUTION_ENV set, so the Tracer loads too). Locally every handler
 * sees every variable, so a module that reads a variable at import which CDK sets only where a resource is
 * granted would pass every other test and still fail each cold start on AWS.
 */

const { api } = synthesize();
const functions: ServiceFunction[] = [
  ...api.authorizerFunctions.values(),
  ...api.endpointFunctions.values(),
  ...api.consumerFunctions.values(),
];

const templates = new Map<Stack, Record<string, CfnResource>>();

/** The function's environment from its synthesized template, tokens (imports, refs) as plausible values. */
function deployedEnvironment(fn: ServiceFunction): Record<string, string> {
  const stack = Stack.of(fn);
  let resources = templates.get(stack);
  if (!resources) {
    resources = resourcesOf(Template.fromStack(stack));
    templates.set(stack, resources);
  }
  const logicalId = logicalIdOf(stack, fn);
  const variables = (resources[logicalId]?.Properties?.Environment as { Variables?: Record<string, unknown> })
    ?.Variables;
  return Object.fromEntries(
    Object.entries(variables ?? {}).map(([name, value]) => [
      name,
      typeof value === 'string'
        ? value
        : name.endsWith('_URL')
          ? 'https://sqs.us-east-1.amazonaws.com/123456789012/placeholder'
          : 'placeholder',
    ]),
  );
}

let outdir: string;

beforeAll(async () => {
  // Under the repository's node_modules: the bundles' `@aws-sdk/*` imports resolve to its SDK, as to the
  // runtime's on Lambda.
  const cache = join(process.cwd(), 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  outdir = mkdtempSync(join(cache, 'bundles-as-deployed-'));
  await build({
    ...LAMBDA_ESBUILD_OPTIONS,
    entryPoints: Object.fromEntries(
      functions.map((fn) => [fn.handlerModule, join('functions', 'handlers', `${fn.handlerModule}.ts`)]),
    ),
    outdir,
    outExtension: { '.js': extname(LAMBDA_BUNDLE.outputFile) },
    logLevel: 'error',
  });
});

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

/** Imports the bundle in a fresh node with only `env` and checks that it exports a handler. */
async function importBundle(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)});
if (typeof m.handler !== 'function') { console.error('no handler export'); process.exit(2); }`;
  const { code, stdout, stderr } = await runNodeScript(script, { env, timeoutMs: 20_000 });
  return { code, output: stdout + stderr };
}

describe('every production bundle, with the environment CDK gives its function', () => {
  it('covers every function of the API stack', () => {
    expect(functions.length).toBe(new Set(functions.map((fn) => fn.handlerModule)).size);
    expect(functions.length).toBeGreaterThan(40);
  });

  it.each(functions.map((fn) => [fn.handlerModule, fn] as const))('%s loads', async (handlerModule, fn) => {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      AWS_REGION: 'us-east-1',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_LAMBDA_FUNCTION_NAME: handlerModule.replace('/', '-'),
      AWS_ACCESS_KEY_ID: 'placeholder',
      AWS_SECRET_ACCESS_KEY: 'placeholder',
      ...deployedEnvironment(fn),
    };
    const { code, output } = await importBundle(
      join(outdir, `${handlerModule}${extname(LAMBDA_BUNDLE.outputFile)}`),
      env,
    );
    expect(output, output).not.toMatch(/Error|not set/);
    expect(code, output).toBe(0);
  });
});
