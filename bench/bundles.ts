import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { AUTHORIZERS } from '../functions/api/authorizers';
import { endpoints } from '../functions/api/index';
import type { ResourceAccess } from '../functions/shared/access';
import { inParallel } from '../functions/shared/parallel';
import { QUEUES, type QueueName, RESOURCE_ENV } from '../functions/shared/resources';
import { consumers } from '../functions/workers/index';
import { cdkJsonContext } from '../lib/app-context';
import {
  bundleDefine,
  bundlesXraySdk,
  LAMBDA_BUNDLE,
  LAMBDA_ESBUILD_OPTIONS,
  XRAY_SDK_TRACING_DEFAULT,
  XRAY_SDK_TRACING_VALUES,
  type XraySdkTracing,
} from '../lib/bundling';
import { sliceOf } from '../lib/slices';
import { runNodeScript } from './node-script';
import { repoRoot } from './runtime';
import type { Scenario, ScenarioResult, StandaloneContext } from './scenario';
import { check, median, round } from './stats';

/**
 * Cold starts: every function's bundle built as a deploy builds it (lib/bundling.ts: esbuild, ESM, minified,
 * AWS SDK included), its size and its module initialisation time (the bundle imported in a fresh Node
 * process with the environment CDK gives the function, median of 5). Targets: module init <= 100 ms for API
 * functions (endpoint handlers and authorizers), <= 150 ms for queue consumers; every bundle <= 1 MB.
 *
 * The bundles stay in BUNDLE_DIR after a run (with each one's metafile.json) for a closer look, e.g. in
 * esbuild's bundle analyser. BUNDLE_DIR is outside the repository with no node_modules/ above it, as a
 * function's /var/task on Lambda: a bundle that imports a package it does not contain fails to load here.
 */
const BUNDLE_KB_TARGET = 1024;
const INIT_MS_TARGET: Record<FunctionKind, number> = { api: 100, consumer: 150 };
const INIT_RUNS = 5;
/** Builds at once (esbuild is itself parallel; the machine has two cores). */
const BUILD_PARALLELISM = 2;
const IMPORT_TIMEOUT_MS = 30_000;
const TOP_PACKAGES = 3;
const KB = 1024;

/** One directory per checkout (worktrees bench at the same time), under the system's temporary directory. */
export const BUNDLE_DIR = join(
  tmpdir(),
  `delivery-routes-bench-bundles-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 12)}`,
);

/** Refuses a BUNDLE_DIR where Node could resolve a package from a node_modules/ that Lambda would not have. */
function assertIsolated(dir: string): void {
  for (let at = dirname(dir); ; at = dirname(at)) {
    if (existsSync(join(at, 'node_modules')))
      throw new Error(`${join(at, 'node_modules')} would be visible to the bundles in ${dir}`);
    if (dirname(at) === at) return;
  }
}

export type FunctionKind = 'api' | 'consumer';

export interface LambdaFunction {
  /** Its slice's name (lib/slices.ts): `drivers/get`, `workers/import-routes`. */
  name: string;
  /** Its entry, `handler.ts` beside its row module (absolute path). */
  entry: string;
  kind: FunctionKind;
  /** What CDK grants it, hence which resource variables its environment has (ServiceFunction.bindAccess). */
  access: ResourceAccess;
  /** Its NODE_OPTIONS, as ServiceFunction sets them (none unless the function has its own V8 flags). */
  nodeOptions?: string;
  /** Whether its bundle carries the X-Ray SDK, as a deploy with cdk.json's context decides (lib/bundling.ts). */
  xraySdk: boolean;
}

/** The `xraySdkTracing` a deploy with cdk.json's context uses. */
function deployedXraySdkTracing(): XraySdkTracing {
  const value = cdkJsonContext().xraySdkTracing;
  if (value === undefined) return XRAY_SDK_TRACING_DEFAULT;
  if (!(XRAY_SDK_TRACING_VALUES as readonly unknown[]).includes(value))
    throw new Error(`cdk.json: xraySdkTracing must be one of ${XRAY_SDK_TRACING_VALUES.join(', ')}`);
  return value as XraySdkTracing;
}

/** The authorizers' grant, as lib/api-stack.ts binds it: they look API keys up and never write. */
const AUTHORIZER_ACCESS: ResourceAccess = { table: 'read' };

/** Every function a deploy creates: each distinct endpoint handler, the authorizers, the queue consumers. */
export function lambdaFunctions(): LambdaFunction[] {
  const tracing = deployedXraySdkTracing();
  const xraySdk = { api: bundlesXraySdk(tracing, 'api'), consumer: bundlesXraySdk(tracing, 'consumer') };
  const api = new Map<string, LambdaFunction>();
  // Endpoints sharing a handler share one function and must declare the same access (CDK checks it).
  for (const endpoint of endpoints) {
    const { name, entry } = sliceOf(endpoint.module);
    if (!api.has(name))
      api.set(name, { name, entry, kind: 'api', access: endpoint.access, xraySdk: xraySdk.api });
  }
  for (const authorizer of Object.values(AUTHORIZERS)) {
    const { name, entry } = sliceOf(authorizer.module);
    api.set(name, { name, entry, kind: 'api', access: AUTHORIZER_ACCESS, xraySdk: xraySdk.api });
  }
  const queueConsumers = new Map<string, LambdaFunction>();
  for (const consumer of consumers)
    queueConsumers.set(sliceOf(consumer.module).name, {
      ...sliceOf(consumer.module),
      kind: 'consumer',
      access: consumer.access,
      nodeOptions: consumer.nodeOptions,
      xraySdk: xraySdk.consumer,
    });
  return [...api.values(), ...queueConsumers.values()];
}

/** esbuild options for one function: the deploy's (LAMBDA_ESBUILD_OPTIONS and its define), with a metafile. */
export function lambdaBuildOptions(entry: string, outdir: string, xraySdk: boolean): BuildOptions {
  return {
    ...LAMBDA_ESBUILD_OPTIONS,
    define: bundleDefine({ xraySdk }),
    entryPoints: [entry],
    outfile: join(outdir, LAMBDA_BUNDLE.outputFile),
    absWorkingDir: repoRoot,
    metafile: true,
    logLevel: 'silent',
  };
}

export interface BuiltBundle {
  /** Absolute path of the bundle (index.mjs) and of its source map. */
  file: string;
  mapFile: string;
  bytes: number;
  mapBytes: number;
  metafile: Metafile;
  /** The metafile's key of the bundle and of the handler's source (relative to the repository). */
  outputKey: string;
  entryKey: string;
}

/** Builds one function's bundle into `outdir` (index.mjs and index.mjs.map) as a deploy would. */
export async function buildLambdaBundle(
  entry: string,
  outdir: string,
  xraySdk: boolean,
): Promise<BuiltBundle> {
  const handler = relative(repoRoot, entry);
  const options = lambdaBuildOptions(handler, outdir, xraySdk);
  const result = await build(options);
  const metafile = result.metafile as Metafile;
  const file = options.outfile as string;
  const outputKey = Object.keys(metafile.outputs).find((key) => key.endsWith(`/${LAMBDA_BUNDLE.outputFile}`));
  if (!outputKey) throw new Error(`esbuild wrote no ${LAMBDA_BUNDLE.outputFile} for ${handler}`);
  const entryKey = metafile.outputs[outputKey]?.entryPoint;
  if (!entryKey) throw new Error(`no entry point in the metafile of ${handler}`);
  const mapFile = `${file}.map`;
  return {
    file,
    mapFile,
    bytes: statSync(file).size,
    mapBytes: statSync(mapFile).size,
    metafile,
    outputKey,
    entryKey,
  };
}

/** `node_modules/@scope/name/...` -> `@scope/name` (the innermost package); undefined for the service's own code. */
export function packageOf(inputPath: string): string | undefined {
  const at = inputPath.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const [first, second] = inputPath.slice(at + 'node_modules/'.length).split('/');
  return first?.startsWith('@') ? `${first}/${second}` : first;
}

export const OWN_CODE = '(service code)';

/** Bytes each package (and the service's own code, OWN_CODE) contributes to the bundle, largest first. */
export function bytesByPackage(bundle: BuiltBundle): { name: string; bytes: number }[] {
  const totals = new Map<string, number>();
  for (const [path, input] of Object.entries(bundle.metafile.outputs[bundle.outputKey]?.inputs ?? {})) {
    const name = packageOf(path) ?? OWN_CODE;
    totals.set(name, (totals.get(name) ?? 0) + input.bytesInOutput);
  }
  return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** The packages the bundle imports at run time instead of containing them (node: builtins aside): none. */
export function externalImports(bundle: BuiltBundle): string[] {
  const imports = bundle.metafile.outputs[bundle.outputKey]?.imports ?? [];
  const builtin = (path: string) =>
    path.startsWith('node:') || (!path.includes('/') && /^[a-z_]+$/.test(path));
  return [...new Set(imports.filter((i) => i.external && !builtin(i.path)).map((i) => i.path))].sort();
}

/** The AWS SDK clients (`@aws-sdk/client-*`) in the bundle, and the bytes of the SDK (@aws-sdk, @smithy) in it. */
export function bundledSdk(bundle: BuiltBundle): { clients: string[]; bytes: number } {
  const clients = new Set<string>();
  let bytes = 0;
  for (const [path, input] of Object.entries(bundle.metafile.outputs[bundle.outputKey]?.inputs ?? {})) {
    const name = packageOf(path);
    if (!name || input.bytesInOutput === 0) continue;
    if (name.startsWith('@aws-sdk/client-')) clients.add(name);
    if (name.startsWith('@aws-sdk/') || name.startsWith('@smithy/')) bytes += input.bytesInOutput;
  }
  return { clients: [...clients].sort(), bytes };
}

/**
 * The shortest import chain from the handler to the first file of `pkg` that has bytes in the bundle, or,
 * for a package left out of the bundle (`@aws-sdk/*`), to the first included file that imports it:
 * `functions/api/x/handler.ts > functions/shared/observability.ts > @aws-lambda-powertools/logger`. Files of one
 * package in a row are shown as the package, once.
 */
export function importChain(bundle: BuiltBundle, pkg: string): string | undefined {
  const inOutput = bundle.metafile.outputs[bundle.outputKey]?.inputs ?? {};
  const included = (path: string) => (inOutput[path]?.bytesInOutput ?? 0) > 0;
  const previous = new Map<string, string | undefined>([[bundle.entryKey, undefined]]);
  const chainTo = (path: string, ...rest: string[]) => {
    const files: string[] = [];
    for (let at: string | undefined = path; at !== undefined; at = previous.get(at)) files.unshift(at);
    const names = [...files.map((file) => packageOf(file) ?? file), ...rest];
    return names.filter((name, index) => name !== names[index - 1]).join(' > ');
  };
  const queue = [bundle.entryKey];
  for (let i = 0; i < queue.length; i++) {
    const path = queue[i] as string;
    if (packageOf(path) === pkg && included(path)) return chainTo(path);
    for (const imported of bundle.metafile.inputs[path]?.imports ?? []) {
      if (imported.external) {
        if (included(path) && (imported.path === pkg || imported.path.startsWith(`${pkg}/`)))
          return chainTo(path, `${imported.path} (external)`);
        continue;
      }
      if (previous.has(imported.path)) continue;
      previous.set(imported.path, path);
      queue.push(imported.path);
    }
  }
  return undefined;
}

const queueUrl = (queue: string) => `https://sqs.us-east-1.amazonaws.com/123456789012/bench-${queue}`;

/** Every resource variable any function can get: for a second try when a function fails without them. */
const EVERY_RESOURCE: ResourceAccess = {
  table: 'readWrite',
  bucket: 'read',
  sendTo: Object.keys(QUEUES) as QueueName[],
  sendToDeadLetter: Object.keys(QUEUES) as QueueName[],
};

/**
 * What a function sees at import on Lambda, with dummy values: the resource variables CDK sets for its
 * `access` (ServiceFunction.bindAccess: TABLE_NAME with a table grant, BUCKET_NAME with a bucket grant or
 * links to sign, LINK_SIGNER_ROLE_ARN with the latter, the URL variable of each queue it sends to or dead-letters into), NODE_OPTIONS and POWERTOOLS_SERVICE_NAME
 * as ServiceFunction sets them, and the runtime's own variables (AWS_EXECUTION_ENV among them: the tracer is
 * loaded where the bundle carries it, as on Lambda with active tracing). LAMBDA_TASK_ROOT is left unset: it would
 * put the X-Ray SDK into its Lambda mode, which writes under /tmp.
 */
export function lambdaLikeEnvironment(
  fn: Pick<LambdaFunction, 'name' | 'access' | 'nodeOptions'>,
): Record<string, string> {
  const { table, bucket, signLinks, sendTo = [], sendToDeadLetter = [] } = fn.access;
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    ...(fn.nodeOptions ? { NODE_OPTIONS: fn.nodeOptions } : {}),
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDBENCHBUNDLES',
    AWS_SECRET_ACCESS_KEY: 'bench-bundles-not-a-secret',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: `bench-${fn.name.replaceAll('/', '-')}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_SERVICE_NAME: 'delivery-route-service',
    ...(table ? { [RESOURCE_ENV.table]: 'bench-table' } : {}),
    ...(bucket || signLinks ? { [RESOURCE_ENV.bucket]: 'bench-bucket' } : {}),
    ...(signLinks
      ? { [RESOURCE_ENV.linkSignerRoleArn]: 'arn:aws:iam::123456789012:role/bench-link-signer' }
      : {}),
    ...Object.fromEntries(sendTo.map((queue) => [QUEUES[queue].urlEnv, queueUrl(queue)])),
    ...Object.fromEntries(
      sendToDeadLetter.map((queue) => [QUEUES[queue].deadLetterUrlEnv, queueUrl(`${queue}-dlq`)]),
    ),
  };
}

/**
 * Run by `node --input-type=module -e`: imports the bundle, prints how long that took (wall time, and the
 * process's CPU time, which other load on the machine inflates much less), checks the export.
 */
const MEASURE_IMPORT = `
const cpuBefore = process.cpuUsage();
const started = performance.now();
const module = await import(process.env.BENCH_BUNDLE_URL);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
if (typeof module.handler !== 'function') {
  process.stderr.write('the bundle exports no handler function\\n');
  process.exit(3);
}
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 }) + '\\n');
process.exit(0);
`;

interface InitRun {
  ms: number;
  cpuMs: number;
}

/** How long `await import(bundle)` takes in a fresh `node` process. */
async function measureInit(file: string, env: Record<string, string>, abort: AbortSignal): Promise<InitRun> {
  const { code, stdout, stderr } = await runNodeScript(MEASURE_IMPORT, {
    cwd: repoRoot,
    env: { ...env, BENCH_BUNDLE_URL: pathToFileURL(file).href },
    signal: abort,
    timeoutMs: IMPORT_TIMEOUT_MS,
  });
  const run = code === 0 ? (JSON.parse(stdout) as Partial<InitRun>) : {};
  if (typeof run.ms !== 'number' || typeof run.cpuMs !== 'number')
    throw new Error(`importing the bundle failed (exit ${code}): ${stderr.trim().slice(-800) || stdout}`);
  return { ms: run.ms, cpuMs: run.cpuMs };
}

const kb = (bytes: number) => round(bytes / KB, 1);

/** The commit the numbers come from, and the files of the functions that differ from it (others' work). */
function sourceState(): { commit: string; uncommitted: string[] } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  try {
    return {
      commit: git('rev-parse', 'HEAD'),
      uncommitted: git('status', '--porcelain', '--', 'functions', 'lib/bundling.ts', 'package-lock.json')
        .split('\n')
        .filter(Boolean),
    };
  } catch (error) {
    return {
      commit: 'unknown',
      uncommitted: [`git failed: ${error instanceof Error ? error.message : error}`],
    };
  }
}

interface Measured extends LambdaFunction {
  bundle?: BuiltBundle;
  /** The environment its init is measured in: the deployed one, unless the import fails there. */
  env: Record<string, string>;
  /** Why the import fails with the environment CDK gives the function (it would fail on every cold start). */
  deployedEnvError?: string;
  packages?: { name: string; bytes: number }[];
  initRuns: InitRun[];
  error?: string;
}

function why(item: Measured): string {
  const packages = (item.packages ?? []).filter((p) => p.name !== OWN_CODE).slice(0, TOP_PACKAGES);
  const own = item.packages?.find((p) => p.name === OWN_CODE)?.bytes ?? 0;
  return [...packages.map((p) => `${p.name} ${kb(p.bytes)} KB`), `${OWN_CODE} ${kb(own)} KB`].join(', ');
}

export const bundlesScenario: Scenario = {
  name: 'bundles',
  needsRuntime: false,
  async run({ abort, log }: StandaloneContext): Promise<ScenarioResult> {
    const started = performance.now();
    const source = sourceState();
    const functions: Measured[] = lambdaFunctions().map((f) => ({
      ...f,
      env: lambdaLikeEnvironment(f),
      initRuns: [],
    }));
    assertIsolated(BUNDLE_DIR);
    rmSync(BUNDLE_DIR, { recursive: true, force: true });
    mkdirSync(BUNDLE_DIR, { recursive: true });

    log(`building ${functions.length} bundles (${BUILD_PARALLELISM} at a time) into ${BUNDLE_DIR}`);
    await inParallel(functions, BUILD_PARALLELISM, async (item) => {
      abort.throwIfAborted();
      try {
        item.bundle = await buildLambdaBundle(item.entry, join(BUNDLE_DIR, item.name), item.xraySdk);
        item.packages = bytesByPackage(item.bundle);
        writeFileSync(join(BUNDLE_DIR, item.name, 'metafile.json'), JSON.stringify(item.bundle.metafile));
      } catch (error) {
        item.error = `build failed: ${error instanceof Error ? error.message : String(error)}`;
        log(`  ${item.name}: ${item.error}`);
      }
    });

    // Round-robin, one process at a time: run k of every function before run k+1 of any, so a passing
    // load on the machine spreads over all functions instead of skewing one.
    const loadBefore = loadavg();
    log(`measuring init: ${INIT_RUNS} fresh node processes per function, one at a time`);
    for (let run = 0; run < INIT_RUNS; run++) {
      for (const item of functions) {
        if (!item.bundle || item.error) continue;
        abort.throwIfAborted();
        try {
          item.initRuns.push(await measureInit(item.bundle.file, item.env, abort));
        } catch (error) {
          abort.throwIfAborted();
          const message = error instanceof Error ? error.message : String(error);
          if (item.deployedEnvError !== undefined) {
            item.error = message;
          } else {
            // Fails on Lambda as deployed: say so, and measure it with every resource variable set instead.
            item.deployedEnvError = message;
            item.env = lambdaLikeEnvironment({ ...item, access: EVERY_RESOURCE });
            log(`  ${item.name}: import fails with its deployed environment: ${message}`);
            try {
              item.initRuns.push(await measureInit(item.bundle.file, item.env, abort));
            } catch (retryError) {
              abort.throwIfAborted();
              item.error = retryError instanceof Error ? retryError.message : String(retryError);
            }
          }
          if (item.error) log(`  ${item.name}: ${item.error}`);
        }
      }
      log(`  run ${run + 1}/${INIT_RUNS} done`);
    }
    const loadAfter = loadavg();

    const rows = functions.map((item) => {
      if (!item.bundle || item.error) return { name: item.name, kind: item.kind, error: item.error };
      const initMs = round(median(item.initRuns.map((r) => r.ms)), 1);
      const kilobytes = kb(item.bundle.bytes);
      const sdk = bundledSdk(item.bundle);
      return {
        name: item.name,
        kind: item.kind,
        ...(item.deployedEnvError
          ? {
              /** The import throws with the environment CDK gives this function: every cold start would fail. */
              deployed_env_import_error: item.deployedEnvError,
              init_measured_with: 'every resource variable set',
            }
          : {}),
        bytes: item.bundle.bytes,
        kb: kilobytes,
        map_kb: kb(item.bundle.mapBytes),
        init_ms_median: initMs,
        init_ms_runs: item.initRuns.map((r) => round(r.ms, 1)),
        init_ms_min: round(Math.min(...item.initRuns.map((r) => r.ms)), 1),
        /** CPU time of the import (user + system), median: less sensitive to other load than wall time. */
        init_cpu_ms_median: round(median(item.initRuns.map((r) => r.cpuMs)), 1),
        /** Whether the bundle carries the X-Ray SDK (the `xraySdkTracing` context value decides per kind). */
        xray_sdk: item.xraySdk,
        /** The AWS SDK clients bundled, and the SDK's share of the bundle (@aws-sdk/*, @smithy/*). */
        sdk_clients: sdk.clients,
        sdk_kb: kb(sdk.bytes),
        top_packages: (item.packages ?? [])
          .filter((p) => p.name !== OWN_CODE)
          .slice(0, TOP_PACKAGES)
          .map((p) => ({ package: p.name, kb: kb(p.bytes) })),
        own_code_kb: kb(item.packages?.find((p) => p.name === OWN_CODE)?.bytes ?? 0),
        /** Packages imported from outside the bundle (would have to be beside it on Lambda): none expected. */
        external_imports: externalImports(item.bundle),
        /** What CDK grants it: a function without `bucket` must not bundle the S3 client, without `sendTo`/`sendToDeadLetter` not the SQS one. */
        access: item.access,
        meets_targets: kilobytes <= BUNDLE_KB_TARGET && initMs <= INIT_MS_TARGET[item.kind],
      };
    });
    const measured = rows.filter((row) => row.error === undefined) as Extract<
      (typeof rows)[number],
      { bytes: number }
    >[];
    const ofKind = (kind: FunctionKind) => measured.filter((row) => row.kind === kind);
    const maxOf = (list: typeof measured, key: 'kb' | 'init_ms_median') =>
      list.length ? Math.max(...list.map((row) => row[key])) : Number.NaN;
    const api = { max_kb: maxOf(ofKind('api'), 'kb'), max_init_ms: maxOf(ofKind('api'), 'init_ms_median') };
    const consumer = {
      max_kb: maxOf(ofKind('consumer'), 'kb'),
      max_init_ms: maxOf(ofKind('consumer'), 'init_ms_median'),
    };

    const byName = new Map(functions.map((item) => [item.name, item]));
    const biggestThree = [...measured]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 3)
      .map((row) => {
        const item = byName.get(row.name) as Measured;
        const bundle = item.bundle as BuiltBundle;
        return {
          name: row.name,
          kind: row.kind,
          kb: row.kb,
          why: why(item),
          /** How the handler reaches each of its biggest packages (shortest import chain). */
          chains: Object.fromEntries(
            row.top_packages.map((p) => [p.package, importChain(bundle, p.package)]),
          ),
        };
      });
    const slowestThree = [...measured]
      .sort((a, b) => b.init_ms_median - a.init_ms_median)
      .slice(0, 3)
      .map((row) => ({
        name: row.name,
        kind: row.kind,
        init_ms_median: row.init_ms_median,
        init_cpu_ms_median: row.init_cpu_ms_median,
        kb: row.kb,
        sdk_kb: row.sdk_kb,
        /** How the handler reaches each AWS SDK client in its bundle (shortest import chain). */
        sdk_chains: Object.fromEntries(
          row.sdk_clients.map((sdk) => [sdk, importChain(byName.get(row.name)?.bundle as BuiltBundle, sdk)]),
        ),
      }));

    // Clients a function has no use for: the S3 client without a bucket grant or links to sign, SQS without a
    // queue to send to.
    const needlessClients = measured.flatMap((row) => {
      const needless: string[] = [];
      const usesS3 = row.access.bucket !== undefined || row.access.signLinks !== undefined;
      if (!usesS3 && row.sdk_clients.includes('@aws-sdk/client-s3')) needless.push('@aws-sdk/client-s3');
      const sends = (row.access.sendTo?.length ?? 0) + (row.access.sendToDeadLetter?.length ?? 0) > 0;
      if (!sends && row.sdk_clients.includes('@aws-sdk/client-sqs')) needless.push('@aws-sdk/client-sqs');
      return needless.map((client) => `${row.name}: ${client}`);
    });
    const withExternalImports = measured
      .filter((row) => row.external_imports.length > 0)
      .map((row) => `${row.name}: ${row.external_imports.join(', ')}`);

    const failed = rows.filter((row) => row.error !== undefined);
    const failingDeployed = functions.filter((item) => item.deployedEnvError !== undefined);
    const failedOf = (kind: FunctionKind) =>
      [...failed, ...failingDeployed].filter((row) => row.kind === kind).map((row) => row.name);
    const passOf = (kind: FunctionKind, max: { max_kb: number; max_init_ms: number }) => ({
      bundle_kb: max.max_kb <= BUNDLE_KB_TARGET,
      init_ms: max.max_init_ms <= INIT_MS_TARGET[kind],
      all:
        max.max_kb <= BUNDLE_KB_TARGET && max.max_init_ms <= INIT_MS_TARGET[kind] && !failedOf(kind).length,
    });
    const apiPass = passOf('api', api);
    const consumerPass = passOf('consumer', consumer);
    return {
      description:
        'every Lambda bundle built with lib/bundling.ts (esbuild, ESM, minified, tree-shaken, AWS SDK bundled, ' +
        'source map beside it): size of index.mjs (KB = 1024 bytes) and module init (await import() in a fresh ' +
        `node process with the function's deployed environment, median of ${INIT_RUNS})`,
      /** Functions that could not be built, or imported even with every resource variable set. */
      errors: failed.length,
      source,
      bundle_dir: BUNDLE_DIR,
      node: process.version,
      /** 1-minute load average before and after the init measurements (2 cores: above 2, they wait for CPU). */
      init_loadavg_1m: [round(loadBefore[0] ?? Number.NaN, 2), round(loadAfter[0] ?? Number.NaN, 2)],
      functions: rows,
      summary: {
        api_functions: ofKind('api').length,
        consumer_functions: ofKind('consumer').length,
        failed: failed.map((row) => row.name),
        /** Their import throws with the environment CDK gives them (see deployed_env_import_error). */
        fail_at_cold_start_as_deployed: failingDeployed.map((item) => item.name),
        api_max_kb: api.max_kb,
        api_max_init_ms: api.max_init_ms,
        consumer_max_kb: consumer.max_kb,
        consumer_max_init_ms: consumer.max_init_ms,
        targets: {
          bundle_kb_max: BUNDLE_KB_TARGET,
          api_init_ms_max: INIT_MS_TARGET.api,
          consumer_init_ms_max: INIT_MS_TARGET.consumer,
        },
        pass: {
          api_bundle_kb: apiPass.bundle_kb,
          api_init_ms: apiPass.init_ms,
          api: apiPass.all,
          consumer_bundle_kb: consumerPass.bundle_kb,
          consumer_init_ms: consumerPass.init_ms,
          consumers: consumerPass.all,
        },
        api_over_target: ofKind('api')
          .filter((row) => !row.meets_targets)
          .map((row) => row.name),
        consumers_over_target: ofKind('consumer')
          .filter((row) => !row.meets_targets)
          .map((row) => row.name),
        needless_sdk_clients: needlessClients,
        external_imports: withExternalImports,
        biggest_three: biggestThree,
        slowest_three: slowestThree,
      },
      duration_s: round((performance.now() - started) / 1000, 1),
      checks: {
        api_bundle_kb_max: check(
          api.max_kb,
          '<=',
          BUNDLE_KB_TARGET,
          'largest API function bundle (index.mjs), KB',
        ),
        api_init_ms_max: check(
          api.max_init_ms,
          '<=',
          INIT_MS_TARGET.api,
          `slowest API function init, median of ${INIT_RUNS} fresh processes, ms`,
        ),
        consumer_bundle_kb_max: check(
          consumer.max_kb,
          '<=',
          BUNDLE_KB_TARGET,
          'largest queue consumer bundle (index.mjs), KB',
        ),
        consumer_init_ms_max: check(
          consumer.max_init_ms,
          '<=',
          INIT_MS_TARGET.consumer,
          `slowest queue consumer init, median of ${INIT_RUNS} fresh processes, ms`,
        ),
        functions_failing_at_import_as_deployed: check(
          failingDeployed.length,
          '<=',
          0,
          'functions whose import throws with the environment CDK gives them (summary.fail_at_cold_start_as_deployed)',
        ),
        needless_sdk_clients: check(
          needlessClients.length,
          '<=',
          0,
          'S3 clients bundled without a bucket grant, SQS clients without a queue to send to (summary.needless_sdk_clients)',
        ),
        functions_with_external_imports: check(
          withExternalImports.length,
          '<=',
          0,
          'bundles importing a package they do not contain (summary.external_imports)',
        ),
      },
    };
  },
};
