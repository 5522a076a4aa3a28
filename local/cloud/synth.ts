import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from 'aws-cdk-lib';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../lib/bundling';
import type { DeliveryRoutes, DeliveryRoutesConfig } from '../../lib/delivery-routes';
import {
  commitCacheEntry,
  DEFAULT_LOCAL_CACHE_DIR,
  isCurrentEntry,
  memoizedFileHashes,
} from '../build-cache';

export interface SynthesizeOptions {
  /** Where the cloud assembly goes. @default a fresh temporary directory */
  outdir?: string;
  /** CDK context, as `cdk deploy -c key=value` gives it (read by the app's readConfig), over cdk.json's. */
  context?: Record<string, unknown>;
  /** Overrides of the deployment settings, over what the context gives. */
  config?: Partial<DeliveryRoutesConfig>;
  /** Changes to the app before it is synthesized (tests: a timeout, an environment variable, a grant). */
  customize?: (routes: DeliveryRoutes, app: App) => void;
}

/**
 * The senders of customer messages the local runtime synthesizes with (docs/local-runtime.md, The outbox):
 * both channels configured, so every message reaches the local outbox; `-c notificationEmailIdentity=` (empty)
 * turns a channel off as a deployment without it is.
 */
export const LOCAL_MESSAGE_SENDERS = {
  notificationEmailIdentity: 'example.com',
  notificationEmailFrom: 'deliveries@example.com',
  notificationSmsOriginationIdentity: 'phone-0123456789abcdef0123456789abcdef',
} as const;

/**
 * Synthesizes the CDK app as `cdk synth` does, minus two slow steps the local runtime does not need:
 * bundling (an empty `aws:cdk:bundling-stacks` makes every function skip esbuild; the local runtime
 * builds the bundles itself from each function's metadata) and the CloudFormation schema validation (and
 * with it cdk-nag, which bin/app.ts adds). Returns the cloud assembly directory.
 *
 * The stacks are environment-agnostic whatever CDK_DEFAULT_ACCOUNT/REGION say, so account and Region stay
 * pseudo parameters that resolve to the local ones.
 */
export async function synthesizeApp(options: SynthesizeOptions = {}): Promise<string> {
  // Loaded here, not at the top: importing local/cloud must not cost CDK's load time (~1.7 s).
  const [{ App }, { defineDeliveryRoutes, readConfig }, { cdkJsonContext }] = await Promise.all([
    import('aws-cdk-lib'),
    import('../../lib/delivery-routes'),
    import('../../lib/app-context'),
  ]);
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'drs-cdk-'));
  const app = new App({
    outdir,
    // cdk.json's feature flags, as the CLI gives them to `cdk deploy`: the local templates are the deployed ones.
    context: {
      ...cdkJsonContext(),
      ...LOCAL_MESSAGE_SENDERS,
      ...options.context,
      'aws:cdk:bundling-stacks': [],
    },
    builtinCloudFormationValidation: false,
  });
  const routes = defineDeliveryRoutes(app, { ...readConfig(app), env: undefined, ...options.config });
  options.customize?.(routes, app);
  return app.synth().directory;
}

/**
 * Files a synthesis depends on besides the repository's modules, relative to the repository (those that exist):
 * cdk.json's feature flags and settings, the compiler options, and which packages are installed.
 */
const SYNTH_CONFIG_FILES = [
  'cdk.json',
  'tsconfig.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
];

/**
 * The app synthesized as synthesizeApp synthesizes it with `context`, reused from an earlier run while nothing it
 * is made of changed: the context and the CDK_* variables (the key of a cache entry), the content of every
 * module of the repository the app imports, of cdk.json, and of the installed packages' lock file. A miss
 * synthesizes into a new directory that replaces the cached one whole. Returns the cloud assembly directory.
 */
export async function cachedSynthesis(options: {
  cacheDir?: string;
  context?: Record<string, unknown>;
  /** Called when the cache has no synthesis to reuse, before synthesizing. */
  onSynthesize?: () => void;
}): Promise<string> {
  const cacheDir = resolve(options.cacheDir ?? join(DEFAULT_LOCAL_CACHE_DIR, 'synth'));
  const cdkVariables = Object.entries(process.env)
    .filter(([name]) => name.startsWith('CDK_'))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const key = createHash('sha256')
    .update(JSON.stringify({ repository: REPO_ROOT, context: options.context ?? {}, cdkVariables }))
    .digest('hex')
    .slice(0, 24);
  const cached = join(cacheDir, key);
  const hashOf = memoizedFileHashes();
  if (await isCurrentEntry(cached, hashOf)) return join(cached, ASSEMBLY_DIR);

  options.onSynthesize?.();
  await mkdir(cacheDir, { recursive: true });
  const fresh = await mkdtemp(join(cacheDir, 'synth-'));
  const [, modules] = await Promise.all([
    synthesizeApp({ outdir: join(fresh, ASSEMBLY_DIR), context: options.context }),
    appModules(),
  ]);
  const configFiles = SYNTH_CONFIG_FILES.map((file) => join(REPO_ROOT, file)).filter((path) =>
    existsSync(path),
  );
  const files = [...modules, ...configFiles];
  return join(await commitCacheEntry(cached, fresh, files, hashOf), ASSEMBLY_DIR);
}

const ASSEMBLY_DIR = 'cdk.out';

/**
 * The repository's modules that synthesizeApp loads (this one, lib/ and the rows of functions/ it imports),
 * as esbuild finds them from here; packages are the lock file's.
 */
async function appModules(): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [fileURLToPath(import.meta.url)],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    absWorkingDir: REPO_ROOT,
    logLevel: 'silent',
  });
  return Object.keys(metafile.inputs).map((path) => resolve(REPO_ROOT, path));
}
