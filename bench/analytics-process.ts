import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { parse } from 'csv-parse';
import { consumers } from '../functions/workers/index';
import { repoRoot } from './runtime';
import { round } from './stats';

/** What the analytics bench (bench/analytics.ts) measures outside its own process: the local runtime's memory, the export worker run on its own, the export's log line and CSV. */

export const RSS_SAMPLE_MS = 50;
const MB = 1024 * 1024;
const EXPORT_LOG_LINE = 'analytics export processed';

/** VmRSS and VmHWM (peak since start) of a process, in bytes, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

/** Samples a process's VmRSS every RSS_SAMPLE_MS until stopped; max is the peak seen. */
export function sampleRss(pid: number) {
  const before = memoryOf(pid);
  let peak = before.rss;
  let samples = 1;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, memoryOf(pid).rss);
      samples++;
    } catch {
      // the process is gone: the export then fails on its own
    }
  }, RSS_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      const after = memoryOf(pid);
      peak = Math.max(peak, after.rss);
      return {
        before_mb: round(before.rss / MB, 1),
        peak_mb: round(peak / MB, 1),
        increase_mb: round((peak - before.rss) / MB, 1),
        after_mb: round(after.rss / MB, 1),
        /** The kernel's peak since the process started (VmHWM), before and after. */
        hwm_before_mb: round(before.hwm / MB, 1),
        hwm_after_mb: round(after.hwm / MB, 1),
        samples,
      };
    },
  };
}

/**
 * The local runtime's node process: `tsx bin/local.ts` (a child of this process) runs the runtime in a
 * child of its own; the one that runs bin/local.ts and no tsx CLI.
 */
export function runtimePid(): number {
  const processes: { pid: number; ppid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\u0000', ' ');
      processes.push({ pid: Number(entry), ppid, cmdline });
    } catch {
      // exited meanwhile
    }
  }
  const runsLocal = (p: { cmdline: string }) => p.cmdline.includes('bin/local.ts');
  const wrapper = processes.find((p) => p.ppid === process.pid && runsLocal(p));
  if (!wrapper) throw new Error('cannot find the local runtime process (tsx bin/local.ts) among my children');
  const inner = processes.find((p) => p.ppid === wrapper.pid && runsLocal(p));
  return inner?.pid ?? wrapper.pid;
}

/** GET of a presigned link, parsed as CSV record by record; `bytes` counts the body. */
export async function* csvRecords(link: string, counter: { bytes: number }): AsyncGenerator<string[]> {
  const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    get(link, resolve).on('error', reject);
  });
  if (response.statusCode !== 200) {
    response.resume();
    throw new Error(`GET ${link.split('?')[0]} answered ${response.statusCode}`);
  }
  response.on('data', (chunk: Buffer) => {
    counter.bytes += chunk.length;
  });
  const parser = response.pipe(parse({ relax_column_count: true }));
  for await (const record of parser) yield record as string[];
}

/** The log line of an export (its JSON's timestamp), searched in the runtime's log after `offset`. */
export function exportLogLine(logFile: string, offset: number, txid: string) {
  const text = readFileSync(logFile, 'utf8').slice(offset);
  for (const line of text.split('\n')) {
    if (!line.includes(EXPORT_LOG_LINE) || !line.includes(txid)) continue;
    try {
      const parsed = JSON.parse(line.slice(line.indexOf('{'))) as { timestamp?: string; outcome?: string };
      return { at: parsed.timestamp ? Date.parse(parsed.timestamp) : Number.NaN, outcome: parsed.outcome };
    } catch {
      return { at: Number.NaN, outcome: undefined };
    }
  }
  return undefined;
}

/**
 * The worker run on its own, in a fresh node process (tsx loader), with the handler's local environment:
 * one synthetic SQS record for a pending request. Samples process.memoryUsage() every RSS_SAMPLE_MS while
 * the handler runs; with BENCH_FORCE_GC (and --expose-gc) it collects garbage before every sample, every
 * GC_SAMPLE_MS, so the heap figures are what is still referenced (the live set), not what is yet to be collected.
 */
export const GC_SAMPLE_MS = 200;
export const ISOLATED_WORKER_SCRIPT = `
const { handler } = await import(process.env.BENCH_HANDLER_URL);
const event = JSON.parse(process.env.BENCH_EVENT);
const context = { awsRequestId: 'bench', functionName: 'bench-export-analytics', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench', memoryLimitInMB: '1024',
  getRemainingTimeInMillis: () => 600000 };
const forceGc = process.env.BENCH_FORCE_GC === '1' && typeof globalThis.gc === 'function';
if (forceGc) globalThis.gc();
const before = process.memoryUsage();
const peak = { ...before };
let samples = 0;
const series = [];
const sample = () => {
  if (forceGc) globalThis.gc();
  const now = process.memoryUsage();
  for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], now[key]);
  series.push([performance.now() - started, now.rss, now.heapUsed + now.external]);
  samples++;
};
let started = performance.now();
const timer = setInterval(sample, forceGc ? ${GC_SAMPLE_MS} : ${RSS_SAMPLE_MS});
started = performance.now();
const response = await handler(event, context);
const ms = performance.now() - started;
clearInterval(timer);
sample();
process.stdout.write('\\nBENCH_RESULT ' + JSON.stringify({ ms, response, forceGc, before, peak,
  maxRss: process.resourceUsage().maxRSS * 1024, samples, series }) + '\\n');
`;

export type Memory = Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;

export interface IsolatedResult {
  ms: number;
  response: unknown;
  forceGc: boolean;
  before: Memory;
  peak: Memory;
  maxRss: number;
  samples: number;
  /** [ms since the handler was called, rss, heapUsed + external] per sample. */
  series: [number, number, number][];
}

/** The peak of a sampled value in each quarter of the run: flat when memory does not grow as rows go by. */
export function peakByQuarter(result: IsolatedResult, column: 1 | 2): number[] {
  const peaks = [0, 0, 0, 0];
  for (const sample of result.series) {
    const quarter = Math.min(3, Math.floor((sample[0] / result.ms) * 4));
    peaks[quarter] = Math.max(peaks[quarter] as number, sample[column]);
  }
  return peaks.map(mb);
}

export function runIsolatedWorker(
  env: NodeJS.ProcessEnv,
  forceGc: boolean,
  abort: AbortSignal,
): Promise<IsolatedResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        // The V8 flags the export Lambda runs with (its NODE_OPTIONS in CDK).
        ...(consumers.find((consumer) => consumer.id === 'exportAnalytics')?.nodeOptions?.split(' ') ?? []),
        '--import',
        'tsx',
        ...(forceGc ? ['--expose-gc'] : []),
        '--input-type=module',
        '-e',
        ISOLATED_WORKER_SCRIPT,
      ],
      {
        cwd: repoRoot,
        env: { ...env, BENCH_FORCE_GC: forceGc ? '1' : '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
        signal: abort,
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
      if (code !== 0 || !line)
        return reject(new Error(`isolated worker exited with ${code}: ${stderr.slice(-1000)}`));
      const result = JSON.parse(line.slice('BENCH_RESULT '.length)) as IsolatedResult;
      if (forceGc && !result.forceGc) return reject(new Error('isolated worker: global.gc is not exposed'));
      resolve(result);
    });
  });
}

export const mb = (bytes: number) => round(bytes / MB, 1);
