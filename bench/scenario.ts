import type { Demo, LocalRuntime } from './runtime';
import type { Check } from './stats';

export interface BenchConfig {
  /** Measured seconds per path and concurrency (BENCH_SECONDS). */
  seconds: number;
  /** Length of one interleaved slice (BENCH_SLICE_SECONDS). */
  sliceSeconds: number;
  /** Warm-up requests per path before measuring (BENCH_WARMUP). */
  warmupRequests: number;
  concurrencies: readonly number[];
}

export interface ScenarioContext {
  runtime: LocalRuntime;
  /** The demo account the runtime seeded, which scenarios measure in. */
  demo: Demo;
  config: BenchConfig;
  /** Fires on SIGINT/SIGTERM: stop sending requests (runLoad throws its reason). */
  abort: AbortSignal;
  /** Progress for humans, on stderr. */
  log(message: string): void;
}

export interface ScenarioResult {
  description: string;
  /** Failed requests (wrong status or body, transport errors), warm-up included; > 0 makes the bench invalid. */
  errors: number;
  checks: Record<string, Check>;
  [detail: string]: unknown;
}

/** What a scenario that does not use the local runtime gets. */
export type StandaloneContext = Omit<ScenarioContext, 'runtime' | 'demo'>;

/**
 * One entry of the bench JSON's `scenarios`; run.ts runs them in order on one local runtime, which it starts
 * before the first scenario that needs it (none: `needsRuntime: false`), so such scenarios alone start none.
 */
export type Scenario =
  | { name: string; needsRuntime?: true; run(context: ScenarioContext): Promise<ScenarioResult> }
  | { name: string; needsRuntime: false; run(context: StandaloneContext): Promise<ScenarioResult> };
