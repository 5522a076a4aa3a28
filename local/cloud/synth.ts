import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import type { DeliveryRoutes, DeliveryRoutesConfig } from '../../lib/delivery-routes';

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
    context: { ...cdkJsonContext(), ...options.context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  const routes = defineDeliveryRoutes(app, { ...readConfig(app), env: undefined, ...options.config });
  options.customize?.(routes, app);
  return app.synth().directory;
}
