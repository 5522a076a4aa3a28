import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { Metafile } from 'esbuild';
import { AUTHORIZERS } from '../functions/api/authorizers';
import { endpoints } from '../functions/api/index';
import type { ResourceAccess } from '../functions/shared/access';
import { consumers } from '../functions/workers/index';
import { cdkJsonContext } from '../lib/app-context';
import {
  buildFunctionAsset,
  bundleDefine,
  bundlesXraySdk,
  ENTRY_FILE,
  entryOutputKey,
  XRAY_SDK_TRACING_DEFAULT,
  XRAY_SDK_TRACING_VALUES,
  type XraySdkTracing,
} from '../lib/bundling';
import { DEFAULT_MEMORY_SIZE_MB } from '../lib/constructs/service-function';
import { sliceOf } from '../lib/slices';
import { repoRoot } from './runtime';

/** The bundles bench's functions (bench/bundles.ts): every function a deploy creates, built as a deploy builds it. */

/** One directory per checkout (worktrees bench at the same time), under the system's temporary directory. */
export const BUNDLE_DIR = join(
  tmpdir(),
  `delivery-routes-bench-bundles-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 12)}`,
);

/** Refuses a BUNDLE_DIR where Node could resolve a package from a node_modules/ that Lambda would not have. */ export function assertIsolated(
  dir: string,
): void {
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
  /** Its memory (MB), as CDK sets it: what Lambda sizes the heap flags of its node process by. */
  memorySize: number;
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
      api.set(name, {
        name,
        entry,
        kind: 'api',
        access: endpoint.access,
        memorySize: DEFAULT_MEMORY_SIZE_MB,
        xraySdk: xraySdk.api,
      });
  }
  for (const authorizer of Object.values(AUTHORIZERS)) {
    const { name, entry } = sliceOf(authorizer.module);
    api.set(name, {
      name,
      entry,
      kind: 'api',
      access: AUTHORIZER_ACCESS,
      memorySize: DEFAULT_MEMORY_SIZE_MB,
      xraySdk: xraySdk.api,
    });
  }
  const queueConsumers = new Map<string, LambdaFunction>();
  for (const consumer of consumers)
    queueConsumers.set(sliceOf(consumer.module).name, {
      ...sliceOf(consumer.module),
      kind: 'consumer',
      access: consumer.access,
      nodeOptions: consumer.nodeOptions,
      memorySize: consumer.memorySize,
      xraySdk: xraySdk.consumer,
    });
  return [...api.values(), ...queueConsumers.values()];
}

export interface BuiltBundle {
  /** Absolute path of the entry file (index.mjs). */
  file: string;
  /** Bytes of every code file of the asset (entry and chunks; source maps and shipped files aside). */
  bytes: number;
  /** Bytes of the code files a cold start loads: the entry and the chunks it imports statically. */
  coldStartBytes: number;
  /** Bytes of the source maps. */
  mapBytes: number;
  metafile: Metafile;
  /** The metafile's keys of the code files (entry first) and of the handler's source (relative to the repository). */
  outputKeys: string[];
  entryKey: string;
}

/** Builds one function's asset into `outdir` (index.mjs, chunks/, source maps) as a deploy would. */
export async function buildLambdaBundle(
  entry: string,
  outdir: string,
  xraySdk: boolean,
): Promise<BuiltBundle> {
  const handler = relative(repoRoot, entry);
  const metafile = await buildFunctionAsset(
    { entry: handler, define: bundleDefine({ xraySdk, entry: handler }), bundledFiles: [] },
    outdir,
  );
  const outputs = Object.entries(metafile.outputs);
  const entryOutput = outputs.find(([key]) => key === entryOutputKey(outdir));
  if (!entryOutput) throw new Error(`esbuild wrote no ${ENTRY_FILE} for ${handler}`);
  const entryKey = entryOutput[1].entryPoint;
  if (!entryKey) throw new Error(`no entry point in the metafile of ${handler}`);
  const code = outputs.filter(([key]) => !key.endsWith('.map'));
  const coldStart = new Set<string>();
  const load = (key: string) => {
    if (coldStart.has(key)) return;
    coldStart.add(key);
    for (const imported of metafile.outputs[key]?.imports ?? [])
      if (imported.kind === 'import-statement' && !imported.external) load(imported.path);
  };
  load(entryOutput[0]);
  const sum = (list: [string, { bytes: number }][]) =>
    list.reduce((total, [, output]) => total + output.bytes, 0);
  return {
    file: join(outdir, ENTRY_FILE),
    bytes: sum(code),
    coldStartBytes: sum(code.filter(([key]) => coldStart.has(key))),
    mapBytes: sum(outputs.filter(([key]) => key.endsWith('.map'))),
    metafile,
    outputKeys: [entryOutput[0], ...code.map(([key]) => key).filter((key) => key !== entryOutput[0])],
    entryKey,
  };
}
