import { readFileSync } from 'node:fs';

/**
 * The context `cdk.json` gives the app: the CDK feature flags (and any deployment setting kept there). The CDK
 * CLI passes it to `cdk synth` and `cdk deploy`; apps synthesized in code (the CDK tests, the local runtime, the
 * bench) take it from here, so they synthesize the very templates a deploy ships. Context given on top of it
 * (`-c name=value`, a test's own) wins, as on the CLI.
 */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return { ...cdkJson.context };
}
