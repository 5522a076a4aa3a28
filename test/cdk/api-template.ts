import { type CfnElement, type NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Method } from 'aws-cdk-lib/aws-apigateway';
import { checkedByGateway } from '../../functions/api/authorizers';
import type { EndpointDefinition } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import { allChannels, type ChannelName } from '../../functions/models/channels';
import type { ResourceAccess } from '../../functions/shared/access';
import type { Channel } from '../../functions/shared/channel';
import { consumers } from '../../functions/workers/index';
import { BUNDLE_METADATA_KEY, type FunctionAsset } from '../../lib/bundling';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { sliceOf } from '../../lib/slices';
import { type CfnResource, logicalIdOf, resourcesOf, synthesize } from './synth';

/**
 * The API stack of one synthesis of the app, as the API stack tests read it: its templates (the stack and its
 * nested stacks), its functions, methods and role policies. Importing this module synthesizes the app once per
 * worker: the CDK tier runs its files without isolation (vitest.config.ts).
 */
export const { api, apiTemplate, stateful } = synthesize();
export const apiId = logicalIdOf(api, api.api);
export const nestedStacks: NestedStack[] = [...api.endpointGroups.values(), api.consumers];

/** The resources of one template (the API stack or one of its nested stacks). */
export class TemplateView {
  readonly resources: Record<string, CfnResource>;

  constructor(readonly stack: Stack) {
    this.resources = resourcesOf(Template.fromStack(stack));
  }

  ofType(type: string): [string, CfnResource][] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }

  props(logicalId: string): Record<string, unknown> {
    const resource = this.resources[logicalId];
    if (!resource) throw new Error(`no resource ${logicalId} in ${this.stack.node.path}`);
    return resource.Properties ?? {};
  }
}

export const views = new Map<Stack, TemplateView>();
export function viewOf(stack: Stack): TemplateView {
  let view = views.get(stack);
  if (!view) {
    view = new TemplateView(stack);
    views.set(stack, view);
  }
  return view;
}
export const parent = viewOf(api);
export const allViews = [parent, ...nestedStacks.map(viewOf)];

/** Every resource of a type across the API stack and its nested stacks, with the view it is in. */
export function allOfType(type: string): [TemplateView, string, CfnResource][] {
  return allViews.flatMap((view) =>
    view.ofType(type).map(([id, r]) => [view, id, r] as [TemplateView, string, CfnResource]),
  );
}

/**
 * `value` as the parent stack sees it: references to a nested stack's parameters are replaced by what the
 * parent passes in (e.g. the API's id, a path's resource id, the authorizer's id).
 */
export function resolvedFromParent(stack: Stack, value: unknown): unknown {
  if (stack === api) return value;
  const nested = stack as NestedStack;
  const passed = (parent.props(logicalIdOf(api, { node: { defaultChild: nested.nestedStackResource } }))
    .Parameters ?? {}) as Record<string, unknown>;
  return JSON.parse(JSON.stringify(value), (_key, v) => {
    if (v && typeof v === 'object' && typeof v.Ref === 'string' && v.Ref in passed) return passed[v.Ref];
    return v;
  });
}

/** A function, where it is defined: its stack's view and its logical id there. */
export interface FunctionRef {
  view: TemplateView;
  id: string;
  fn: ServiceFunction;
}

export function refOf(fn: ServiceFunction | undefined, what: string): FunctionRef {
  if (!fn) throw new Error(`no function for ${what}`);
  const stack = Stack.of(fn);
  return { view: viewOf(stack), id: logicalIdOf(stack, fn), fn };
}

/** The build-time constants of a function's bundle, from the metadata the local runtime builds it by. */
export const bundleDefineOf = (fn: ServiceFunction) =>
  (
    (fn.node.defaultChild as CfnElement & { getMetadata(key: string): unknown }).getMetadata(
      BUNDLE_METADATA_KEY,
    ) as FunctionAsset
  ).define;

export const functionOf = (sliceName: string) => refOf(api.endpointFunctions.get(sliceName), sliceName);
export const authorizerFunctionOf = (kind: EndpointDefinition['auth']) =>
  refOf(api.authorizerFunctions.get(kind), `authorizer ${kind}`);
export const consumerFunctionOf = (consumerId: string) =>
  refOf(api.consumerFunctions.get(consumerId), `consumer ${consumerId}`);

export const READ_ACTIONS = new Set([
  'dynamodb:BatchGetItem',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
]);
export const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

export const functionArn = (id: string) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] });

export interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
  Condition?: unknown;
}

export const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** Every Allow statement of any policy attached to the function's role, actions and resources as arrays. */
export function allowStatements({ view, id }: FunctionRef): Statement[] {
  const role = (view.props(id).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return view
    .ofType('AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties?.Roles).includes(JSON.stringify({ Ref: role })))
    .flatMap(
      ([policyId]) =>
        (view.props(policyId).PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    )
    .filter((s) => s.Effect === 'Allow')
    .map((s) => ({
      Effect: 'Allow',
      Action: asArray(s.Action as string | string[]),
      Resource: asArray(s.Resource),
      ...(s.Condition === undefined ? {} : { Condition: s.Condition }),
    }));
}

/** Every action any policy attached to the function's role allows. */
export function allowedActions(fn: FunctionRef): string[] {
  return allowStatements(fn).flatMap((s) => s.Action);
}

/** The resources the function may perform `action` on. */
export function resourcesAllowed(fn: FunctionRef, action: string): unknown[] {
  return allowStatements(fn)
    .filter((s) => s.Action.includes(action))
    .flatMap((s) => s.Resource);
}

/** The environment variables of a function of any synth (this file's or another). */
export function resolvedVariables(fn: ServiceFunction): Record<string, unknown> {
  const id = fn.stack.getLogicalId(fn.node.defaultChild as CfnElement);
  const environment = viewOf(fn.stack).props(id).Environment as { Variables?: Record<string, unknown> };
  return environment?.Variables ?? {};
}

export function environmentOf({ view, id }: FunctionRef): Record<string, unknown> {
  return (view.props(id).Environment as { Variables: Record<string, unknown> }).Variables;
}

export const importOf = (exportName: string) => ({ 'Fn::ImportValue': exportName });
export const bucketArn = importOf(stateful.exports.bucket.bucketArnExportName);
export const bucketObjects = (keyPrefix = '') => ({ 'Fn::Join': ['', [bucketArn, `/${keyPrefix}*`]] });
const queueExports = (channel: Channel) => stateful.exports.queues[channel.name as ChannelName];
export const queueArn = (channel: Channel) => importOf(queueExports(channel).queueArnExportName);
export const queueUrl = (channel: Channel) => importOf(queueExports(channel).queueUrlExportName);
export const deadLetterArn = (channel: Channel) => importOf(queueExports(channel).deadLetterArnExportName);
export const deadLetterUrl = (channel: Channel) => importOf(queueExports(channel).deadLetterUrlExportName);
export const alarmTopicArn = importOf(stateful.exports.alarmTopicArnExportName);
export const QUEUE_URL_ENVS = allChannels.flatMap((channel) => [channel.urlEnv, channel.deadLetterUrlEnv]);

export const handlers = [...new Set(endpoints.map((e) => sliceOf(e.module).name))];
/** Auth kinds with a gateway authorizer; driver tokens are checked by the handlers themselves. */
export const usedAuthKinds = [...new Set(endpoints.map((e) => e.auth).filter(checkedByGateway))];

/** Every function with its declared access: one per endpoint handler, then one per consumer. */
export const accessByFunction: { name: string; fn: FunctionRef; access: ResourceAccess }[] = [
  ...handlers.map((handler) => ({
    name: handler,
    fn: functionOf(handler),
    access: endpoints.find((e) => sliceOf(e.module).name === handler)?.access ?? {},
  })),
  ...consumers.map((c) => ({ name: `consumer ${c.id}`, fn: consumerFunctionOf(c.id), access: c.access })),
];

export const allFunctions: FunctionRef[] = [
  ...handlers.map(functionOf),
  ...usedAuthKinds.map(authorizerFunctionOf),
  ...consumers.map((c) => consumerFunctionOf(c.id)),
];

/** An endpoint's method: its stack's view, its properties there, and the path it is on. */
export interface MethodRef {
  view: TemplateView;
  id: string;
  props: Record<string, unknown>;
  path: string;
  httpMethod: string;
}

export const methodRefs: MethodRef[] = [...api.endpointGroups.values()].flatMap((group) =>
  [...group.methods.values()].map((method: Method) => {
    const view = viewOf(group);
    const id = logicalIdOf(group, method);
    return { view, id, props: view.props(id), path: method.resource.path, httpMethod: method.httpMethod };
  }),
);
export const methods = new Map(methodRefs.map((m) => [`${m.httpMethod} ${m.path}`, m]));

export function methodOf(endpoint: EndpointDefinition): MethodRef {
  const method = methods.get(`${endpoint.method} ${endpoint.path}`);
  if (!method) throw new Error(`no ${endpoint.method} method on ${endpoint.path}`);
  return method;
}
