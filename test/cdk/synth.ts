import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { EndpointDefinition } from '../../functions/api/define';
import type { ConsumerDefinition } from '../../functions/workers/define';
import { cdkJsonContext } from '../../lib/app-context';
import { DEFAULT_CONFIG, type DeliveryRoutesConfig, defineDeliveryRoutes } from '../../lib/delivery-routes';

/** A CloudFormation resource as it appears in a synthesized template. */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

/** A CDK app with cdk.json's feature flags, as `cdk synth` makes it, that skips bundling and schema validation. */
export function testApp(): App {
  return new App({
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
}

/**
 * Synthesizes the app as `bin/app.ts` does under `cdk synth` (cdk.json's feature flags included), minus two slow steps that these tests do not look at:
 * bundling (an empty `aws:cdk:bundling-stacks` list makes every function skip esbuild and point its
 * asset at the source directory) and CDK's built-in CloudFormation schema validation (`cdk synth` runs it).
 */
export function synthesize(
  config: Partial<DeliveryRoutesConfig> = {},
  lists: { endpoints?: readonly EndpointDefinition[]; consumers?: readonly ConsumerDefinition[] } = {},
) {
  const app = testApp();
  const stacks = defineDeliveryRoutes(
    app,
    { ...DEFAULT_CONFIG, ...config },
    lists.endpoints,
    lists.consumers,
  );
  const assembly = app.synth();
  return {
    app,
    assembly,
    ...stacks,
    statefulTemplate: Template.fromStack(stacks.stateful),
    apiTemplate: Template.fromStack(stacks.api),
  };
}

export function resourcesOf(template: Template): Record<string, CfnResource> {
  return template.toJSON().Resources as Record<string, CfnResource>;
}

/** The logical id of a construct's CloudFormation resource (its default child for L2 constructs). */
export function logicalIdOf(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  const cfn = construct.node.defaultChild;
  if (!cfn) throw new Error('construct has no default child');
  return stack.getLogicalId(cfn as Parameters<Stack['getLogicalId']>[0]);
}
