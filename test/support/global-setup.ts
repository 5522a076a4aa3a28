import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { snapshotCacheEntry } from '../../local/build-cache';
import { readDeployment } from '../../local/cloud/deployment';
import { cachedSynthesis } from '../../local/cloud/synth';
import { cachedBundles } from '../../local/lambda/bundles';
import { type RunningService, startDynamoDbLocal, startLocalAws } from '../../local/services';

declare module 'vitest' {
  export interface ProvidedContext {
    awsEndpoint: string;
    /** One DynamoDB Local per worker: a file uses the one of its worker (see workerDynamoDb). */
    dynamodbEndpoints: string[];
    /** The app synthesized once for the run (without bundling), as `cdk deploy` would see it. */
    assemblyDir: string;
    /** Every function's production bundle, built once for the run: [entry, bundle dir] pairs. */
    bundles: [string, string][];
  }
}

let services: RunningService[] = [];
let scratch: string | undefined;

/**
 * Starts fauxqs and a DynamoDB Local per worker once for the run, and has the app synthesized and every
 * function's bundle built: test files each deploy it under their own names. The synthesis and the bundles come
 * from `npm start`'s cache (local/build-cache.ts), built only when a file they are made from changed, so a
 * second run, and `npm start` in the tests, build nothing; the run works on a snapshot of them (hard links),
 * which an edit during the run cannot change. Nothing runs beforehand.
 */
export async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  scratch = mkdtempSync(join(tmpdir(), 'drs-test-'));
  const fauxqs = startLocalAws();
  // A DynamoDB Local per worker (its SQLite works on one thread: files running at once get one each), as
  // many as files will run at once (one for a run of one file); started while the app is synthesized and built.
  const { testFiles } = await project.globTestFiles(fileFilters(project));
  const workers = Math.max(1, Math.min(project.globalConfig.maxWorkers, testFiles.length));
  // The `large` project's files are minutes of load on their DynamoDB Local each (local/services.ts).
  const sustainedLoad = project.name === 'large';
  const dynamodbs = Promise.all(Array.from({ length: workers }, () => startDynamoDbLocal({ sustainedLoad })));
  const assemblyDir = snapshotCacheEntry(await cachedSynthesis({}), join(scratch, 'synth'));
  const { functions } = readDeployment(assemblyDir, {
    namePrefix: 'bundles',
    awsEndpoint: 'http://127.0.0.1',
  });
  const bundles = await cachedBundles(functions);
  const aws = await fauxqs;
  services = [aws, ...(await dynamodbs)];
  project.provide('awsEndpoint', aws.endpoint);
  project.provide(
    'dynamodbEndpoints',
    (await dynamodbs).map((dynamodb) => dynamodb.endpoint),
  );
  project.provide('assemblyDir', assemblyDir);
  project.provide(
    'bundles',
    [...bundles].map(([entry, dir]) => [entry, snapshotCacheEntry(dir, join(scratch as string, 'bundles'))]),
  );
}

/**
 * The file filters of the command line (`npx vitest run test/e2e/drivers.test.ts`): vitest keeps them on its
 * instance, not in its public API; without them every file of the project counts, which only starts a
 * DynamoDB Local too many.
 */
function fileFilters(project: TestProject): string[] {
  return (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern ?? [];
}

export async function teardown() {
  await Promise.all(services.map((service) => service.stop()));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
