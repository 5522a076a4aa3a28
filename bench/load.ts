import { performance } from 'node:perf_hooks';
import { type PathSummary, summarizePath } from './stats';

/** One request of a load path; resolves when the answer was checked, throws when it was wrong. */
export type Operation = () => Promise<void>;

export interface LoadRun {
  latenciesMs: number[];
  ok: number;
  errors: number;
  elapsedMs: number;
  /** The first few distinct error messages. */
  errorSamples: string[];
}

const MAX_ERROR_SAMPLES = 5;

function emptyRun(): LoadRun {
  return { latenciesMs: [], ok: 0, errors: 0, elapsedMs: 0, errorSamples: [] };
}

function recordError(run: LoadRun, error: unknown): void {
  run.errors++;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (run.errorSamples.length < MAX_ERROR_SAMPLES && !run.errorSamples.includes(message))
    run.errorSamples.push(message);
}

/**
 * Closed loop: `concurrency` workers each send the next request as soon as the previous one is answered,
 * until `durationMs` has passed (requests in flight at the deadline are finished and counted) or, with
 * `count`, until that many requests were started. Throws the abort reason once `abort` fires.
 */
export async function runLoad(
  operation: Operation,
  options: { concurrency: number; durationMs?: number; count?: number; abort?: AbortSignal },
): Promise<LoadRun> {
  const run = emptyRun();
  const started = performance.now();
  const deadline = options.durationMs === undefined ? Number.POSITIVE_INFINITY : started + options.durationMs;
  const count = options.count ?? Number.POSITIVE_INFINITY;
  let issued = 0;
  async function worker() {
    while (issued < count && performance.now() < deadline && !options.abort?.aborted) {
      issued++;
      const t0 = performance.now();
      try {
        await operation();
        run.latenciesMs.push(performance.now() - t0);
        run.ok++;
      } catch (error) {
        recordError(run, error);
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  run.elapsedMs = performance.now() - started;
  options.abort?.throwIfAborted();
  return run;
}

function merge(into: LoadRun, run: LoadRun): void {
  for (const latency of run.latenciesMs) into.latenciesMs.push(latency);
  into.ok += run.ok;
  into.errors += run.errors;
  into.elapsedMs += run.elapsedMs;
  for (const sample of run.errorSamples)
    if (into.errorSamples.length < MAX_ERROR_SAMPLES && !into.errorSamples.includes(sample))
      into.errorSamples.push(sample);
}

export interface ComparedPath extends PathSummary {
  error_samples?: string[];
}

/**
 * Runs every path for `seconds` in total at one concurrency, in slices of about `sliceSeconds`,
 * interleaved A B, B A, A B ... so that drift (JIT, GC, the JVM warming up) touches every path alike.
 */
export async function compareInterleaved<Name extends string>(
  paths: Record<Name, Operation>,
  options: {
    concurrency: number;
    seconds: number;
    sliceSeconds: number;
    abort?: AbortSignal;
    log?: (message: string) => void;
  },
): Promise<Record<Name, ComparedPath>> {
  const names = Object.keys(paths) as Name[];
  const rounds = Math.max(1, Math.round(options.seconds / options.sliceSeconds));
  const sliceMs = (options.seconds * 1000) / rounds;
  const totals = Object.fromEntries(names.map((name) => [name, emptyRun()])) as Record<Name, LoadRun>;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      merge(
        totals[name],
        await runLoad(paths[name], {
          concurrency: options.concurrency,
          durationMs: sliceMs,
          abort: options.abort,
        }),
      );
    }
    options.log?.(`  c=${options.concurrency} round ${round + 1}/${rounds} done`);
  }
  return Object.fromEntries(
    names.map((name) => {
      const run = totals[name];
      const summary: ComparedPath = summarizePath(run);
      if (run.errorSamples.length) summary.error_samples = run.errorSamples;
      return [name, summary];
    }),
  ) as Record<Name, ComparedPath>;
}
