/** Latency and throughput summaries for the bench JSON. */

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export interface PathSummary {
  /** Requests that completed (answered or failed) inside the measured windows. */
  requests: number;
  ok: number;
  errors: number;
  /** Wall time of the measured windows, summed. */
  duration_s: number;
  /** Successful requests per second of wall time. */
  throughput_rps: number;
  /** Latency of the successful requests, in milliseconds. */
  latency_ms: LatencySummary;
}

/** Nearest-rank percentile (p in 0..100) of values already sorted ascending; NaN when empty. */
export function percentile(sortedAscending: readonly number[], p: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sortedAscending.length);
  const index = Math.min(sortedAscending.length - 1, Math.max(0, rank - 1));
  return sortedAscending[index] as number;
}

/** The middle value (the mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function summarizeLatencies(values: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  const list = Array.from(sorted);
  const sum = list.reduce((total, value) => total + value, 0);
  return {
    p50: round(percentile(list, 50)),
    p90: round(percentile(list, 90)),
    p99: round(percentile(list, 99)),
    mean: round(list.length ? sum / list.length : Number.NaN),
    min: round(list[0] ?? Number.NaN),
    max: round(list[list.length - 1] ?? Number.NaN),
  };
}

export function summarizePath(run: {
  latenciesMs: readonly number[];
  ok: number;
  errors: number;
  elapsedMs: number;
}): PathSummary {
  const seconds = run.elapsedMs / 1000;
  return {
    requests: run.ok + run.errors,
    ok: run.ok,
    errors: run.errors,
    duration_s: round(seconds),
    throughput_rps: round(seconds > 0 ? run.ok / seconds : Number.NaN, 1),
    latency_ms: summarizeLatencies(run.latenciesMs),
  };
}

/** A run's summary with the first error messages, if any. */
export function summaryOf(run: Parameters<typeof summarizePath>[0] & { errorSamples: readonly string[] }) {
  return {
    ...summarizePath(run),
    ...(run.errorSamples.length ? { error_samples: run.errorSamples } : {}),
  };
}

/** Percentiles and maximum of a set of values, rounded for the JSON. */
export function distribution(values: readonly number[]) {
  const sorted = Array.from(Float64Array.from(values).sort());
  return {
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
    samples: sorted.length,
  };
}

/** Rounds for the JSON; NaN and infinities become null there anyway (JSON.stringify), kept as-is here. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A target a scenario states about its numbers; `pass` is false when the value is missing. */
export interface Check {
  value: number;
  op: '<=' | '>=';
  target: number;
  pass: boolean;
  /** Which measurement the value comes from. */
  note: string;
}

export function check(value: number, op: Check['op'], target: number, note: string): Check {
  const pass = Number.isFinite(value) && (op === '<=' ? value <= target : value >= target);
  return { value: round(value), op, target, pass, note };
}
