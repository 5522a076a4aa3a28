import { inject } from 'vitest';

/** The CDK tier's setup file: its files' temp directory is the run's (test/support/cdk-global-setup.ts). */
process.env.TMPDIR = inject('cdkTempDir');
