import { spawn } from 'node:child_process';

export interface NodeScriptResult {
  /** Exit code; null when the process was killed (timeout, abort). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NodeScriptOptions {
  /** The whole environment of the process (nothing is inherited). */
  env: Record<string, string>;
  /** node's own flags, before the script (as Lambda's bootstrap passes its flags). */
  nodeArgs?: readonly string[];
  cwd?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Runs an ES module script in a fresh `node` (the one running this process) and collects its output: how
 * the bench times a bundle's import and the tests load and invoke production bundles.
 */
export async function runNodeScript(script: string, options: NodeScriptOptions): Promise<NodeScriptResult> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--input-type=module', '-e', script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: options.signal,
    timeout: options.timeoutMs,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { code, stdout, stderr };
}

/** What a measuring script prints before the JSON of its result, on a line of its own. */
export const RESULT_MARK = 'BENCH_RESULT ';

/**
 * The result a measuring script printed after RESULT_MARK; throws, with the end of its stderr, when the script
 * failed or printed none (`what` names the run in the message).
 */
export function scriptResult<T>({ stdout, stderr, code }: NodeScriptResult, what: string): T {
  const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (code !== 0 || !line) throw new Error(`${what} failed (exit ${code}): ${stderr.trim().slice(-800)}`);
  return JSON.parse(line.slice(RESULT_MARK.length)) as T;
}
