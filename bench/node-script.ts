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
