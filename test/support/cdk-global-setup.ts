import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The CDK tier's temp directory for the run (test/support/cdk-temp-dir.ts). */
    cdkTempDir: string;
  }
}

/**
 * The CDK tier's temp directory: every CDK app without an outdir makes a cloud assembly directory (`cdk.out…`)
 * in the temp directory as it is constructed, and CDK never removes it (a run of the tier left 68 of them,
 * 80 MB). The tier's files make theirs in one directory, removed when the run ends: not one per file, as the
 * files of a worker share their modules (the tier runs without isolation), and with them a synthesis a module
 * keeps, whose nested templates stay in its assembly directory.
 */
export function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  project.provide('cdkTempDir', dir);
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
