/**
 * `npm run bench`: starts the local runtime (`tsx bin/local.ts --in-memory`) as a child process, runs the
 * scenarios against it from this process and prints ONE JSON object on stdout; progress goes to stderr.
 * Scenarios that need no runtime (`bundles`: every Lambda bundle's size and init time; `local_start`: the
 * runtime's own first and later starts) run before it starts; when only such scenarios are selected it is not started at all.
 * Env: BENCH_SCENARIOS (comma-separated names to run, e.g. `get_driver,route_import`; default all),
 * BENCH_SECONDS (measured seconds per path and concurrency, default 5), BENCH_SLICE_SECONDS (interleaving
 * slice, default 1), BENCH_WARMUP (warm-up requests per path, default 300), BENCH_PARTITIONS (the runtime's
 * DynamoDB partition model: count, the default, reports for each scenario the floor AWS's per-partition
 * limits put under what it sent through the service; enforce also throttles; off runs without it).
 * Exit code 1 when a request failed (the numbers are then not trustworthy) or the bench could not run, 130 when
 * interrupted; targets that are missed are reported in the JSON (`pass`) without failing the command. A
 * scenario that fails is reported with its error and the next one still runs.
 * `npm run -s bench` keeps npm's own banner off stdout.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { analyticsExportScenario } from './analytics';
import { bundlesScenario } from './bundles';
import { busyDayScenario } from './busy-day';
import { customerMessagesScenario } from './customer-messages';
import { arrivalDetectionScenario } from './detection';
import { driverLocationScenario } from './driver-location';
import { getDriverScenario } from './drivers';
import { localStartScenario } from './local-start';
import { benchPartitionMode, partitionFloor, partitionReport, resetPartitions } from './partitions';
import { routeImportScenario } from './route-import';
import { routeOptimizationScenario } from './route-optimization';
import { demoOf, type LocalRuntime, startLocalRuntime } from './runtime';
import type { BenchConfig, Scenario, ScenarioResult, StandaloneContext } from './scenario';
import { round } from './stats';
import { webhookDeliveryScenario } from './webhooks';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const SCENARIOS: Scenario[] = [
  bundlesScenario,
  localStartScenario,
  getDriverScenario,
  routeImportScenario,
  driverLocationScenario,
  arrivalDetectionScenario,
  webhookDeliveryScenario,
  customerMessagesScenario,
  busyDayScenario,
  analyticsExportScenario,
  routeOptimizationScenario,
];

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** The scenarios BENCH_SCENARIOS names, in the bench's own order; all of them when it is unset. */
function selectedScenarios(): Scenario[] {
  const raw = process.env.BENCH_SCENARIOS?.trim();
  if (!raw) return SCENARIOS;
  const names = new Set(
    raw
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
  const known = new Set(SCENARIOS.map((scenario) => scenario.name));
  const unknown = [...names].filter((name) => !known.has(name));
  if (unknown.length || names.size === 0)
    throw new Error(
      `BENCH_SCENARIOS: unknown scenario ${unknown.map((n) => `'${n}'`).join(', ') || "''"}; ` +
        `known: ${[...known].join(', ')}`,
    );
  return SCENARIOS.filter((scenario) => names.has(scenario.name));
}

function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new Error(`${name} must be a number >= ${min}, got '${raw}'`);
  return value;
}

const startedAt = new Date();
const started = performance.now();
let runtime: LocalRuntime | undefined;

const report: Record<string, unknown> = {
  bench: 'delivery-route-service',
  timestamp: startedAt.toISOString(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model.trim(),
  /** 1/5/15-minute load averages: other work on the machine skews the numbers. */
  loadavg_start: loadavg().map((value) => round(value, 2)),
};

async function stopRuntime() {
  await runtime?.stop();
}

// SIGINT/SIGTERM: stop the load, stop the runtime, still print the JSON (marked invalid); a second signal
// exits at once (the runtime's process group is then SIGKILLed by the exit hook in runtime.ts).
const abort = new AbortController();
let interrupted: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = signal;
    log(`${signal}: stopping`);
    abort.abort(new Error(`interrupted by ${signal}`));
  });
}

/** A scenario that throws (but not an interruption) is reported as failed, with one error, and the bench goes on. */
async function runScenario(
  scenario: Scenario,
  context: StandaloneContext,
  runtime: LocalRuntime | undefined,
): Promise<ScenarioResult> {
  const started = performance.now();
  try {
    if (scenario.needsRuntime === false) return await scenario.run(context);
    if (!runtime) throw new Error('the local runtime is not running');
    return await scenario.run({ ...context, runtime, demo: demoOf(runtime) });
  } catch (error) {
    context.abort.throwIfAborted();
    log(
      `scenario ${scenario.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`,
    );
    return {
      description: scenario.name,
      errors: 1,
      error: error instanceof Error ? error.message : String(error),
      duration_s: round((performance.now() - started) / 1000, 1),
      checks: {},
    };
  }
}

let exitCode = 0;
try {
  const config: BenchConfig = {
    seconds: numberFromEnv('BENCH_SECONDS', 5, 0.1),
    sliceSeconds: numberFromEnv('BENCH_SLICE_SECONDS', 1, 0.1),
    warmupRequests: Math.round(numberFromEnv('BENCH_WARMUP', 300, 1)),
    concurrencies: [1, 16],
  };
  const selected = selectedScenarios();
  const partitions = benchPartitionMode(process.env);
  report.config = {
    dynamodb_partitions: partitions,
    scenarios: selected.map((scenario) => scenario.name),
    seconds_per_path_and_concurrency: config.seconds,
    slice_seconds: config.sliceSeconds,
    warmup_requests_per_path: config.warmupRequests,
    concurrencies: config.concurrencies,
  };

  const scenarios: Record<string, ScenarioResult & { pass: boolean }> = {};
  for (const scenario of selected) {
    // Started before the first scenario that needs it; a runtime that does not start fails the bench.
    if (scenario.needsRuntime !== false && !runtime) {
      log('starting the local runtime (tsx bin/local.ts --in-memory)');
      runtime = await startLocalRuntime(log, abort.signal, { LOCAL_DYNAMODB_PARTITIONS: partitions });
      report.runtime = { startup_s: round(runtime.startupMs / 1000, 2) };
    }
    log(`scenario ${scenario.name}`);
    // The partition model counts each scenario on its own: what the service consumed, not the raw baselines.
    const counted = scenario.needsRuntime !== false && partitions !== 'off' ? runtime?.stack : undefined;
    if (counted) await resetPartitions(counted);
    const result = await runScenario(scenario, { config, abort: abort.signal, log }, runtime);
    const usage = counted ? await partitionReport(counted) : undefined;
    if (usage) {
      result.aws_partition_floor = {
        ...partitionFloor(usage.partitions),
        note:
          "the least time AWS's per-partition-key limits allow for every DynamoDB call the scenario sent " +
          'through the service (warm-ups included; not the raw baselines, which bypass the local endpoint): the ' +
          "busiest key's units over its limit",
      };
    }
    const pass = result.errors === 0 && Object.values(result.checks).every((c) => c.pass);
    scenarios[scenario.name] = { ...result, pass };
    for (const [name, c] of Object.entries(result.checks))
      log(`  ${name} = ${c.value} (target ${c.op} ${c.target}): ${c.pass ? 'pass' : 'FAIL'}`);
  }
  await stopRuntime();

  const errors = Object.values(scenarios).reduce((total, result) => total + result.errors, 0);
  if (errors > 0) {
    log(`WARNING: ${errors} failed requests; the numbers are not trustworthy`);
    exitCode = 1;
  }
  Object.assign(report, {
    valid: errors === 0,
    errors,
    pass: errors === 0 && Object.values(scenarios).every((result) => result.pass),
    duration_s: round((performance.now() - started) / 1000, 1),
    loadavg_end: loadavg().map((value) => round(value, 2)),
    scenarios,
  });
} catch (error) {
  if (interrupted) log(`interrupted by ${interrupted}`);
  else log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  exitCode = interrupted ? 130 : 1;
  Object.assign(report, {
    valid: false,
    pass: false,
    error: error instanceof Error ? error.message : String(error),
    duration_s: round((performance.now() - started) / 1000, 1),
  });
  await stopRuntime().catch((stopError) => log(`stop failed: ${String(stopError)}`));
}

process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.exitCode = exitCode;
