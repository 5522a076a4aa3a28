import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { inParallel } from '../functions/shared/parallel';
import { DEFAULT_MEMORY_SIZE_MB } from '../lib/constructs/service-function';
import {
  assertIsolated,
  BUNDLE_DIR,
  type BuiltBundle,
  buildLambdaBundle,
  type FunctionKind,
  type LambdaFunction,
  lambdaFunctions,
} from './bundle-build';
import { bytesByPackage } from './bundle-contents';
import {
  EVERY_RESOURCE,
  type InitRun,
  lambdaLikeEnvironment,
  lambdaNodeArgs,
  measureInit,
} from './bundle-init';
import { repoRoot } from './runtime';
import type { StandaloneContext } from './scenario';

/**
 * What the bundles bench (bench/bundles.ts) measures: every function's bundle, the floor's, its references'
 * and the noise copies', built into BUNDLE_DIR and initialised in fresh node processes, round-robin.
 */

/** The least a function of each kind can take: the reference (REFERENCES) that loads what all of them load. */
export const LEAST_OF: Record<FunctionKind, string> = {
  api: 'zod-observability',
  consumer: 'zod-observability-batch',
};
const FLOOR_ENTRY = join(repoRoot, 'bench/floor/handler.ts');
/**
 * Bundles built and initialised with the floor, reported as ratios over it, not checked: the floor plus what
 * every function of a kind loads before its own schemas and code, i.e. the least a function of this design can
 * take (bench/floor/references/, each file says what it adds).
 */
const REFERENCES: readonly { name: string; adds: string }[] = [
  { name: 'zod', adds: 'zod with one schema' },
  { name: 'observability', adds: "Powertools' logger and metrics middleware" },
  {
    name: 'zod-observability',
    adds: "zod with one schema, Powertools' logger and metrics middleware: the least an API function loads",
  },
  {
    name: 'zod-observability-batch',
    adds: "zod with one schema, Powertools' logger and metrics middleware and batch processor: the least a queue consumer loads",
  },
];
/**
 * Runs per function. More did not narrow the noise: with 10 runs, or with the round in a new random order each
 * run, the slowest identical copy still read 1.26 and 1.18-1.32 times their least (2026-12-03).
 */
export const INIT_RUNS = 5;
/**
 * A bundle's init as the checks read it: the least of its runs. What else the machine does only adds to a run:
 * on these two-core machines a fresh process's import took either about its least or 30-40 ms more, CPU time
 * too (one quiet run: tracking/page 122.9, 121.8, 124.5, 95.9, 87.6 ms), so a median of 5 read a function's
 * slow runs when three of its five met them, and the slowest median of 71 identical copies read 1.24 times
 * their reference's. A function that loads more is slower in every run, its least too.
 */
export const leastRun = (runs: readonly InitRun[]) =>
  runs.length ? Math.min(...runs.map((r) => r.ms)) : Number.NaN;
/**
 * Copies of each kind's least reference (LEAST_OF), one measured beside each function of the kind in the same
 * round-robin. They are the same code as the reference, so their least runs and its own are one sample of the
 * least function's init in this run, the checks' denominator (their median); and the spread of the API copies'
 * least runs is what the machine alone does to the API check (`noise`, reported, not checked): their slowest
 * is what the slowest of as many functions reads when every function costs the same.
 */
export const NOISE_COPY_OF = LEAST_OF.api;
/**
 * The floor is measured again after every FLOOR_EVERY functions and copies of a round, not once per round: the
 * least functions over the floor are checked (bench/bundles.ts), and one bundle's init moved by up to 6% from
 * run to run (NOISE_COPY_OF). Its places in the round (floorSlots) then meet the same moments of the machine as
 * the functions do.
 */
const FLOOR_EVERY = 10;

/**
 * The floor's runs by its place in the round, INIT_RUNS each (the round runs it at the same places every time):
 * the floor's least run at each place is a sample like a function's least run.
 */
export function floorSlots(floor: Measured): InitRun[][] {
  const perRound = floor.initRuns.length / INIT_RUNS;
  if (!Number.isInteger(perRound)) return [];
  return Array.from({ length: perRound }, (_, slot) =>
    Array.from({ length: INIT_RUNS }, (_, run) => floor.initRuns[run * perRound + slot] as InitRun),
  );
}
/** Builds at once (esbuild is itself parallel; the machine has two cores). */
const BUILD_PARALLELISM = 2;

export interface Measured extends LambdaFunction {
  bundle?: BuiltBundle;
  /** The environment its init is measured in: the deployed one, unless the import fails there. */
  env: Record<string, string>;
  /** node's flags, as Lambda's bootstrap starts it (bundle-init.ts, lambdaNodeArgs). */
  nodeArgs: string[];
  /** Why the import fails with the environment CDK gives the function (it would fail on every cold start). */
  deployedEnvError?: string;
  packages?: { name: string; bytes: number }[];
  initRuns: InitRun[];
  error?: string;
}

export interface BundleMeasurement {
  /** Every function a deploy creates (lambdaFunctions). */
  functions: Measured[];
  /** bench/floor/handler.ts, built and measured as a function, every FLOOR_EVERY items of each round. */
  floor: Measured;
  /** REFERENCES, built and measured as the floor. */
  references: (Measured & { adds: string })[];
  /** The reference the noise copies copy (NOISE_COPY_OF): its copies are `copies.api`. */
  copied: (Measured & { adds: string }) | undefined;
  /** The copies of each kind's least reference, one per function of the kind: none when it failed to build. */
  copies: Record<FunctionKind, Measured[]>;
  /** The 1-minute load averages before and after the init measurements. */
  loadBefore: number[];
  loadAfter: number[];
}

/** Builds every bundle, then measures each one's init INIT_RUNS times; failures are kept on the item (`error`). */
export async function measureBundles({
  abort,
  log,
}: Pick<StandaloneContext, 'abort' | 'log'>): Promise<BundleMeasurement> {
  const functions: Measured[] = lambdaFunctions().map((f) => ({
    ...f,
    env: lambdaLikeEnvironment(f),
    nodeArgs: lambdaNodeArgs(f),
    initRuns: [],
  }));
  // Built, initialised and measured with the functions, in the same round-robin; reported apart.
  const floorFunction = {
    name: 'floor',
    kind: 'api' as const,
    access: { table: 'read' as const },
    memorySize: DEFAULT_MEMORY_SIZE_MB,
  };
  const floor: Measured = {
    ...floorFunction,
    entry: FLOOR_ENTRY,
    xraySdk: false,
    env: lambdaLikeEnvironment(floorFunction),
    nodeArgs: lambdaNodeArgs(floorFunction),
    initRuns: [],
  };
  const references: (Measured & { adds: string })[] = REFERENCES.map(({ name, adds }) => ({
    ...floorFunction,
    name: `floor-references/${name}`,
    adds,
    entry: join(repoRoot, 'bench/floor/references', `${name}.ts`),
    xraySdk: false,
    env: lambdaLikeEnvironment(floorFunction),
    nodeArgs: lambdaNodeArgs(floorFunction),
    initRuns: [],
  }));
  assertIsolated(BUNDLE_DIR);
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  mkdirSync(BUNDLE_DIR, { recursive: true });

  log(`building ${functions.length} bundles (${BUILD_PARALLELISM} at a time) into ${BUNDLE_DIR}`);
  await inParallel([floor, ...references, ...functions], BUILD_PARALLELISM, async (item) => {
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

  const copied = references.find((item) => item.name === `floor-references/${NOISE_COPY_OF}`);
  const copies: Record<FunctionKind, Measured[]> = { api: [], consumer: [] };
  for (const kind of ['api', 'consumer'] as const) {
    const reference = references.find((item) => item.name === `floor-references/${LEAST_OF[kind]}`);
    if (!reference?.bundle) continue;
    const count = functions.filter((item) => item.kind === kind).length;
    for (let index = 1; index <= count; index++) {
      const name = `${kind === 'api' ? 'noise' : 'consumer-noise'}/copy-${String(index).padStart(2, '0')}`;
      cpSync(join(BUNDLE_DIR, reference.name), join(BUNDLE_DIR, name), { recursive: true });
      copies[kind].push({
        ...reference,
        name,
        bundle: { ...reference.bundle, file: join(BUNDLE_DIR, name, basename(reference.bundle.file)) },
        initRuns: [],
      });
    }
  }
  // Each function followed by a copy of its kind's least reference, so that copies and functions meet the
  // same moments of the machine.
  const nextCopy = { api: 0, consumer: 0 };
  const measuredInOrder = functions.flatMap((item) => {
    const copy = copies[item.kind][nextCopy[item.kind]++];
    return copy ? [item, copy] : [item];
  });

  // Round-robin, one process at a time: run k of every function before run k+1 of any, so a passing
  // load on the machine spreads over all functions instead of skewing one.
  const loadBefore = loadavg();
  log(`measuring init: ${INIT_RUNS} fresh node processes per function, one at a time`);
  const round = [floor, ...references, ...measuredInOrder].flatMap((item, index) =>
    index > 0 && index % FLOOR_EVERY === 0 ? [floor, item] : [item],
  );
  for (let run = 0; run < INIT_RUNS; run++) {
    for (const item of round) {
      if (!item.bundle || item.error) continue;
      abort.throwIfAborted();
      try {
        item.initRuns.push(await measureInit(item.bundle.file, item.env, item.nodeArgs, abort));
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
            item.initRuns.push(await measureInit(item.bundle.file, item.env, item.nodeArgs, abort));
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
  return { functions, floor, references, copied, copies, loadBefore, loadAfter };
}
