import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * Files that take minutes alone. Without a results cache (a fresh clone in CI) vitest runs larger files
 * first, which would leave these small files for last, running alone while the other worker idles; they
 * start first instead.
 */
const LONG_RUNNING = ['test/e2e/npm-start-crash.test.ts'];

/**
 * The tests of the largest sizes, minutes of DynamoDB Local each: the route of 2,000 waypoints and 50,000 items
 * imported, read back and deleted (about four minutes quiet), and DynamoDB Local's write speed after 50,000
 * stream records. A project of their own, `large`, which `npm test` leaves out and `npm run test:large` (a CI step
 * of its own) runs; the route test's DynamoDB Local is started for sustained load (test/support/global-setup.ts).
 */
const LARGE = ['test/e2e/large-route.test.ts', 'test/e2e/dynamodb-local.test.ts'];

class LongRunningFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files);
    const isLong = (file: TestSpecification) => LONG_RUNNING.some((path) => file.moduleId.endsWith(path));
    return [...sorted.filter(isLong), ...sorted.filter((file) => !isLong(file))];
  }
}

export default defineConfig({
  test: {
    // Three tiers. Only the end-to-end tier needs the synthesized app, every bundle and fauxqs (its global
    // setup); the unit and CDK tiers start nothing, so `npx vitest run test/unit` is a quick inner loop.
    // The unit, CDK and end-to-end tiers run their files one after another in each worker's process, without
    // isolation (the two files of `large` keep a process each): a file's imports (zod, the AWS SDK,
    // aws-cdk-lib, the service's and the local runtime's modules) load once per worker instead of once per
    // file, and a synthesis a CDK helper module keeps serves every file of the worker. The unit tier took 34
    // CPU-s instead of 50, the CDK tier 39 instead of 59; in a whole `npm test` the end-to-end tier's test
    // workers took about 245 CPU-s instead of 320 (631 s instead of 656 s on two cores, the same day). A file
    // starts from the worker's environment and no configuration (test/support/fresh-file.ts); the service's
    // clients follow `configure` (functions/shared/config.ts); a helper that keeps what a file started empties
    // its list as the file ends.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          isolate: false,
          setupFiles: ['test/support/fresh-file.ts'],
        },
      },
      {
        extends: true,
        // A test that synthesizes the app with other settings takes 3-8 s per synthesis on a quiet machine,
        // and several times that beside a busy end-to-end tier: two in one test need more than 30 s.
        test: {
          name: 'cdk',
          include: ['test/cdk/**/*.test.ts'],
          testTimeout: 120_000,
          isolate: false,
          globalSetup: ['test/support/cdk-global-setup.ts'],
          setupFiles: ['test/support/cdk-temp-dir.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: LARGE,
          // fauxqs and a DynamoDB Local per worker start once for the run; each test file makes its own table
          // and queues.
          globalSetup: ['test/support/global-setup.ts'],
          isolate: false,
          setupFiles: ['test/support/fresh-file.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'large', include: LARGE, globalSetup: ['test/support/global-setup.ts'] },
      },
    ],
    pool: 'forks',
    // Three files at a time on two cores (vitest's default there is one): an e2e file waits on DynamoDB Local,
    // queues and Lambda processes for much of its time. With two, the machine's cores were idle 14% of a whole
    // `npm test` (621 s); with three, 3% (551 s), the same day.
    maxWorkers: 3,
    sequence: { sequencer: LongRunningFirst },
    testTimeout: 30_000,
    hookTimeout: 90_000,
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
