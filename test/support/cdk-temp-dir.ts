import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * The CDK tier's setup file: every CDK app without an outdir makes a cloud assembly directory (`cdk.out…`)
 * in the temp directory as it is constructed, and CDK never removes it (a run of the tier left 68 of them,
 * 80 MB). The file's temp directory is one of its own, removed when the file ends.
 */
const fileTempDir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
process.env.TMPDIR = fileTempDir;

afterAll(() => rmSync(fileTempDir, { recursive: true, force: true, maxRetries: 3 }));
