import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { readDeployment } from '../../local/cloud/deployment';
import { synthesizeApp } from '../../local/cloud/synth';
import { buildBundles } from '../../local/lambda/bundles';
import { type RunningService, startLocalAws } from '../../local/services';

declare module 'vitest' {
  export interface ProvidedContext {
    awsEndpoint: string;
    /** The app synthesized once for the run (without bundling), as `cdk deploy` would see it. */
    assemblyDir: string;
    /** Every function's production bundle, built once for the run: [entry, bundle dir] pairs. */
    bundles: [string, string][];
  }
}

let services: RunningService[] = [];
let scratch: string | undefined;

/**
 * Starts fauxqs once for the run, synthesizes the app and builds every function's bundle once: test files each
 * deploy it under their own names, each on a DynamoDB Local of its own (see startTestApi). Nothing runs
 * beforehand.
 */
export async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  scratch = mkdtempSync(join(tmpdir(), 'drs-test-'));
  const fauxqs = startLocalAws();
  const assemblyDir = await synthesizeApp({ outdir: join(scratch, 'cdk.out') });
  const { functions } = readDeployment(assemblyDir, {
    namePrefix: 'bundles',
    awsEndpoint: 'http://127.0.0.1',
  });
  const bundles = await buildBundles(functions, join(scratch, 'bundles'));
  const aws = await fauxqs;
  services = [aws];
  project.provide('awsEndpoint', aws.endpoint);
  project.provide('assemblyDir', assemblyDir);
  project.provide('bundles', [...bundles]);
}

export async function teardown() {
  await Promise.all(services.map((service) => service.stop()));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
