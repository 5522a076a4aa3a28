import { type CfnElement, type NestedStack, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRestApi, Method } from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import { AUTHORIZERS, checkedByGateway } from '../../functions/api/authorizers';
import type { EndpointDefinition } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import { importRoute } from '../../functions/api/routes/index';
import type { ResourceAccess } from '../../functions/shared/access';
import {
  ANALYTICS_FILES_PREFIX,
  IMPORT_UPLOADS_PREFIX,
  QUEUES,
  type QueueName,
  RESOURCE_ENV,
} from '../../functions/shared/resources';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/service-identity';
import type { ConsumerDefinition } from '../../functions/workers/define';
import { consumers } from '../../functions/workers/index';
import { API_ALARMS } from '../../lib/api-stack';
import { BUNDLE_METADATA_KEY, type BundleMetadata, XRAY_SDK_CONSTANT } from '../../lib/bundling';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { DEFAULT_CONFIG, defineDeliveryRoutes } from '../../lib/delivery-routes';
import {
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseBody,
} from '../../lib/gateway-responses';
import { sliceOf } from '../../lib/slices';
import { type CfnResource, logicalIdOf, resourcesOf, synthesize, testApp } from './synth';

const { api, apiTemplate, stateful } = synthesize();
const apiId = logicalIdOf(api, api.api);
const nestedStacks: NestedStack[] = [...api.endpointGroups.values(), api.consumers];

/** The resources of one template (the API stack or one of its nested stacks). */
class TemplateView {
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

const views = new Map<Stack, TemplateView>();
function viewOf(stack: Stack): TemplateView {
  let view = views.get(stack);
  if (!view) {
    view = new TemplateView(stack);
    views.set(stack, view);
  }
  return view;
}
const parent = viewOf(api);
const allViews = [parent, ...nestedStacks.map(viewOf)];

/** Every resource of a type across the API stack and its nested stacks, with the view it is in. */
function allOfType(type: string): [TemplateView, string, CfnResource][] {
  return allViews.flatMap((view) =>
    view.ofType(type).map(([id, r]) => [view, id, r] as [TemplateView, string, CfnResource]),
  );
}

/**
 * `value` as the parent stack sees it: references to a nested stack's parameters are replaced by what the
 * parent passes in (e.g. the API's id, a path's resource id, the authorizer's id).
 */
function resolvedFromParent(stack: Stack, value: unknown): unknown {
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
interface FunctionRef {
  view: TemplateView;
  id: string;
  fn: ServiceFunction;
}

function refOf(fn: ServiceFunction | undefined, what: string): FunctionRef {
  if (!fn) throw new Error(`no function for ${what}`);
  const stack = Stack.of(fn);
  return { view: viewOf(stack), id: logicalIdOf(stack, fn), fn };
}

/** The build-time constants of a function's bundle, from the metadata the local runtime builds it by. */
const bundleDefineOf = (fn: ServiceFunction) =>
  (
    (fn.node.defaultChild as CfnElement & { getMetadata(key: string): unknown }).getMetadata(
      BUNDLE_METADATA_KEY,
    ) as BundleMetadata
  ).define;

const functionOf = (sliceName: string) => refOf(api.endpointFunctions.get(sliceName), sliceName);
const authorizerFunctionOf = (kind: EndpointDefinition['auth']) =>
  refOf(api.authorizerFunctions.get(kind), `authorizer ${kind}`);
const consumerFunctionOf = (consumerId: string) =>
  refOf(api.consumerFunctions.get(consumerId), `consumer ${consumerId}`);

const READ_ACTIONS = new Set([
  'dynamodb:BatchGetItem',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
]);
const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

const functionArn = (id: string) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] });

interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
}

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** Every Allow statement of any policy attached to the function's role, actions and resources as arrays. */
function allowStatements({ view, id }: FunctionRef): Statement[] {
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
    }));
}

/** Every action any policy attached to the function's role allows. */
function allowedActions(fn: FunctionRef): string[] {
  return allowStatements(fn).flatMap((s) => s.Action);
}

/** The resources the function may perform `action` on. */
function resourcesAllowed(fn: FunctionRef, action: string): unknown[] {
  return allowStatements(fn)
    .filter((s) => s.Action.includes(action))
    .flatMap((s) => s.Resource);
}

/** The environment variables of a function of any synth (this file's or another). */
function resolvedVariables(fn: ServiceFunction): Record<string, unknown> {
  const id = fn.stack.getLogicalId(fn.node.defaultChild as CfnElement);
  const environment = viewOf(fn.stack).props(id).Environment as { Variables?: Record<string, unknown> };
  return environment?.Variables ?? {};
}

function environmentOf({ view, id }: FunctionRef): Record<string, unknown> {
  return (view.props(id).Environment as { Variables: Record<string, unknown> }).Variables;
}

const importOf = (exportName: string) => ({ 'Fn::ImportValue': exportName });
const bucketArn = importOf(stateful.exports.bucket.bucketArnExportName);
const bucketObjects = (keyPrefix = '') => ({ 'Fn::Join': ['', [bucketArn, `/${keyPrefix}*`]] });
const queueArn = (name: QueueName) => importOf(stateful.exports.queues[name].queueArnExportName);
const queueUrl = (name: QueueName) => importOf(stateful.exports.queues[name].queueUrlExportName);
const deadLetterArn = (name: QueueName) => importOf(stateful.exports.queues[name].deadLetterArnExportName);
const deadLetterUrl = (name: QueueName) => importOf(stateful.exports.queues[name].deadLetterUrlExportName);
const alarmTopicArn = importOf(stateful.exports.alarmTopicArnExportName);
const QUEUE_URL_ENVS = Object.values(QUEUES).flatMap((q) => [q.urlEnv, q.deadLetterUrlEnv]);

const handlers = [...new Set(endpoints.map((e) => sliceOf(e.module).name))];
/** Auth kinds with a gateway authorizer; driver tokens are checked by the handlers themselves. */
const usedAuthKinds = [...new Set(endpoints.map((e) => e.auth).filter(checkedByGateway))];

/** Every function with its declared access: one per endpoint handler, then one per consumer. */
const accessByFunction: { name: string; fn: FunctionRef; access: ResourceAccess }[] = [
  ...handlers.map((handler) => ({
    name: handler,
    fn: functionOf(handler),
    access: endpoints.find((e) => sliceOf(e.module).name === handler)?.access ?? {},
  })),
  ...consumers.map((c) => ({ name: `consumer ${c.id}`, fn: consumerFunctionOf(c.id), access: c.access })),
];

const allFunctions: FunctionRef[] = [
  ...handlers.map(functionOf),
  ...usedAuthKinds.map(authorizerFunctionOf),
  ...consumers.map((c) => consumerFunctionOf(c.id)),
];

/** An endpoint's method: its stack's view, its properties there, and the path it is on. */
interface MethodRef {
  view: TemplateView;
  id: string;
  props: Record<string, unknown>;
  path: string;
  httpMethod: string;
}

const methodRefs: MethodRef[] = [...api.endpointGroups.values()].flatMap((group) =>
  [...group.methods.values()].map((method: Method) => {
    const view = viewOf(group);
    const id = logicalIdOf(group, method);
    return { view, id, props: view.props(id), path: method.resource.path, httpMethod: method.httpMethod };
  }),
);
const methods = new Map(methodRefs.map((m) => [`${m.httpMethod} ${m.path}`, m]));

function methodOf(endpoint: EndpointDefinition): MethodRef {
  const method = methods.get(`${endpoint.method} ${endpoint.path}`);
  if (!method) throw new Error(`no ${endpoint.method} method on ${endpoint.path}`);
  return method;
}

describe('API methods', () => {
  it.each(endpoints)('$operationId: $method $path exists with its operation name', (endpoint) => {
    expect(methodOf(endpoint).props.OperationName).toBe(endpoint.operationId);
  });

  it.each(endpoints)(
    '$operationId: sits on the path resource the parent stack made for $path',
    (endpoint) => {
      const method = methodOf(endpoint);
      const resourceId = resolvedFromParent(method.view.stack, method.props.ResourceId) as { Ref?: string };
      const pathParts = endpoint.path.split('/').filter(Boolean);
      expect(parent.props(resourceId.Ref ?? '').PathPart).toBe(pathParts.at(-1));
      expect(resolvedFromParent(method.view.stack, method.props.RestApiId)).toEqual({ Ref: apiId });
    },
  );

  it.each(endpoints)('$operationId: integrates as AWS_PROXY with the function of $handler', (endpoint) => {
    const method = methodOf(endpoint);
    const fn = functionOf(sliceOf(endpoint.module).name);
    expect(fn.view).toBe(method.view);
    const integration = method.props.Integration as Record<string, unknown>;
    expect(integration.Type).toBe('AWS_PROXY');
    expect(integration.IntegrationHttpMethod).toBe('POST');
    const uri = JSON.stringify(integration.Uri);
    expect(uri).toContain(':lambda:path/2015-03-31/functions/');
    expect(uri).toContain(functionArn(fn.id));
  });

  it.each(endpoints)(
    '$operationId: auth $auth is enforced by the matching authorizer, if the gateway checks it',
    (endpoint) => {
      const method = methodOf(endpoint);
      if (!checkedByGateway(endpoint.auth)) {
        expect(method.props.AuthorizationType).toBe('NONE');
        expect(method.props.AuthorizerId).toBeUndefined();
        return;
      }
      expect(method.props.AuthorizationType).toBe('CUSTOM');
      const authorizerId = resolvedFromParent(method.view.stack, method.props.AuthorizerId) as {
        Ref: string;
      };
      expect(JSON.stringify(parent.props(authorizerId.Ref).AuthorizerUri)).toContain(
        functionArn(authorizerFunctionOf(endpoint.auth).id),
      );
    },
  );

  it.each(endpoints)(
    '$operationId: requires the account’s usage key only when it takes an account key (auth $auth)',
    (endpoint) => {
      // apiKey methods: the authorizer names the account's usage key and the usage plan throttles it.
      // Driver-token and public methods have no authorizer to name one: stage and method throttling only.
      expect(methodOf(endpoint).props.ApiKeyRequired ?? false).toBe(endpoint.auth === 'apiKey');
    },
  );

  it('has no methods beyond the endpoint list', () => {
    const expected = new Set(endpoints.map((e) => `${e.method} ${e.path}`));
    expect([...methods.keys()].filter((key) => !expected.has(key))).toEqual([]);
    expect(allOfType('AWS::ApiGateway::Method')).toHaveLength(endpoints.length);
  });

  it('puts each domain (endpoint tag) in a nested stack of its own', () => {
    const tags = [...new Set(endpoints.map((e) => e.tag))].sort();
    expect([...api.endpointGroups.keys()].sort()).toEqual(tags);
    for (const endpoint of endpoints) {
      expect(methodOf(endpoint).view.stack, endpoint.operationId).toBe(api.endpointGroups.get(endpoint.tag));
    }
  });
});

describe('authorizers', () => {
  it.each(usedAuthKinds)(
    '%s: REQUEST authorizer on the Authorization header, cached as AUTHORIZERS says',
    (kind) => {
      const definition = AUTHORIZERS[kind];
      expect(definition, `AUTHORIZERS has no ${kind}`).toBeDefined();
      const authorizers = parent
        .ofType('AWS::ApiGateway::Authorizer')
        .filter(([, r]) =>
          JSON.stringify(r.Properties?.AuthorizerUri).includes(functionArn(authorizerFunctionOf(kind).id)),
        );
      expect(authorizers).toHaveLength(1);
      expect(authorizers[0]?.[1].Properties).toMatchObject({
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: definition?.cacheTtlSeconds,
      });
    },
  );
});

describe('Lambda functions', () => {
  it('has one function per distinct handler plus one per authorizer and one per consumer, and no others', () => {
    const expected = allFunctions.map((f) => `${f.view.stack.node.path}/${f.id}`);
    expect(new Set(expected).size).toBe(handlers.length + usedAuthKinds.length + consumers.length);
    expect(
      allOfType('AWS::Lambda::Function')
        .map(([view, id]) => `${view.stack.node.path}/${id}`)
        .sort(),
    ).toEqual(expected.sort());
  });

  it('endpoints that share a handler share its function', () => {
    const targets = new Set(
      methodRefs.map(
        (m) => `${m.view.stack.node.path} ${JSON.stringify((m.props.Integration as { Uri: unknown }).Uri)}`,
      ),
    );
    expect(targets.size).toBe(handlers.length);
  });

  it('gives each function exactly one invoke permission, scoped to this API', () => {
    for (const handler of handlers) {
      const { view, id } = functionOf(handler);
      const permissions = view
        .ofType('AWS::Lambda::Permission')
        .filter(([, p]) => JSON.stringify(p.Properties?.FunctionName) === functionArn(id));
      expect(permissions, handler).toHaveLength(1);
      expect(permissions[0]?.[1].Properties?.Principal).toBe('apigateway.amazonaws.com');
      expect(
        JSON.stringify(resolvedFromParent(view.stack, permissions[0]?.[1].Properties?.SourceArn)),
      ).toContain(JSON.stringify({ Ref: apiId }));
    }
  });

  it('every endpoint and authorizer function has 1024 MB and 10 s', () => {
    for (const fn of [...handlers.map(functionOf), ...usedAuthKinds.map(authorizerFunctionOf)]) {
      expect(fn.view.props(fn.id), fn.id).toMatchObject({ MemorySize: 1024, Timeout: 10 });
    }
  });

  it.each(allFunctions.map((fn) => [fn.fn.sliceName, fn] as const))(
    '%s runs nodejs22.x on arm64 with active tracing, Powertools settings, no source-map flag and its own log group with retention',
    (_name, fn) => {
      expect(fn.view.props(fn.id)).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
      });
      // --enable-source-maps would parse the bundle's map at every cold start (lib/bundling.ts).
      expect(environmentOf(fn).NODE_OPTIONS ?? '').not.toContain('--enable-source-maps');
      // Logs, metrics and traces name the service; tracing is never switched off by the environment.
      expect(environmentOf(fn)).toMatchObject({
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      });
      expect(environmentOf(fn).POWERTOOLS_TRACE_ENABLED).toBeUndefined();
      expect(environmentOf(fn).POWERTOOLS_METRICS_DISABLED).toBeUndefined();
      const logGroup = (fn.view.props(fn.id).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(fn.view.resources[logGroup]?.Type).toBe('AWS::Logs::LogGroup');
      expect(fn.view.props(logGroup).RetentionInDays).toBe(30);
    },
  );

  /**
   * Active tracing everywhere (Lambda records each initialisation and invocation), the X-Ray SDK only in the
   * queue consumers by default: in an API function it would cost 30-35 ms of every cold start.
   */
  it('bundles the X-Ray SDK into the queue consumers only (xraySdkTracing defaults to consumers)', () => {
    const consumerFunctions = new Set(api.consumerFunctions.values());
    expect(consumerFunctions.size).toBe(consumers.length);
    for (const { fn } of allFunctions) {
      expect(bundleDefineOf(fn), fn.sliceName).toEqual({
        [XRAY_SDK_CONSTANT]: String(consumerFunctions.has(fn)),
      });
    }
  });

  it.each(['none', 'all'] as const)(
    'with xraySdkTracing=%s, bundles it into no function or every one',
    (setting) => {
      const { api: other } = synthesize({ xraySdkTracing: setting });
      const functions = [
        ...other.endpointFunctions.values(),
        ...other.authorizerFunctions.values(),
        ...other.consumerFunctions.values(),
      ];
      for (const fn of functions)
        expect(bundleDefineOf(fn), fn.sliceName).toEqual({
          [XRAY_SDK_CONSTANT]: String(setting === 'all'),
        });
    },
  );

  it.each(allFunctions.map((fn) => [fn.fn.sliceName, fn] as const))(
    '%s alarms on any throttled invocation, to the alarm topic',
    (_name, fn) => {
      const alarms = fn.view
        .ofType('AWS::CloudWatch::Alarm')
        .filter(
          ([, a]) =>
            JSON.stringify(a.Properties?.Dimensions) ===
            JSON.stringify([{ Name: 'FunctionName', Value: { Ref: fn.id } }]),
        );
      expect(alarms).toHaveLength(1);
      expect(alarms[0]?.[1].Properties).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [alarmTopicArn],
        OKActions: [alarmTopicArn],
      });
    },
  );

  it('no function role carries an AWS managed policy', () => {
    const assumedByLambda = (role: CfnResource) =>
      JSON.stringify(role.Properties?.AssumeRolePolicyDocument).includes('lambda.amazonaws.com');
    const functionRoles = allOfType('AWS::IAM::Role').filter(([, , role]) => assumedByLambda(role));
    expect(functionRoles.length).toBeGreaterThan(endpoints.length / 2);
    for (const [view, id, role] of functionRoles) {
      expect(role.Properties?.ManagedPolicyArns, `${view.stack.node.path}/${id}`).toBeUndefined();
    }
  });
});

describe('table access', () => {
  const byAccess = (access: EndpointDefinition['access']['table']) => [
    ...new Set(endpoints.filter((e) => e.access.table === access).map((e) => sliceOf(e.module).name)),
  ];

  it.each(byAccess('read'))("%s (access 'read') may only read the table", (handler) => {
    const dynamo = allowedActions(functionOf(handler)).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).toContain('dynamodb:GetItem');
    expect(dynamo).toContain('dynamodb:Query');
    expect(dynamo.filter((a) => !READ_ACTIONS.has(a))).toEqual([]);
    expect(environmentOf(functionOf(handler))).toMatchObject({ [RESOURCE_ENV.table]: expect.anything() });
  });

  it.each(byAccess('readWrite'))("%s (access 'readWrite') may read and write the table", (handler) => {
    const actions = allowedActions(functionOf(handler));
    for (const action of [...WRITE_ACTIONS, 'dynamodb:GetItem', 'dynamodb:Query'])
      expect(actions).toContain(action);
    expect(environmentOf(functionOf(handler))).toMatchObject({ [RESOURCE_ENV.table]: expect.anything() });
  });

  it.each(byAccess(undefined))(
    '%s (no table access) gets no DynamoDB permission and no table name',
    (handler) => {
      expect(allowedActions(functionOf(handler)).filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
      expect(environmentOf(functionOf(handler))[RESOURCE_ENV.table]).toBeUndefined();
    },
  );

  it.each(usedAuthKinds)('the %s authorizer may only read the table', (kind) => {
    const dynamo = allowedActions(authorizerFunctionOf(kind)).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).toContain('dynamodb:GetItem');
    expect(dynamo.filter((a) => !READ_ACTIONS.has(a))).toEqual([]);
  });

  it('no function role allows a wildcard action', () => {
    for (const fn of allFunctions) {
      expect(
        allowedActions(fn).filter((a) => a.includes('*')),
        fn.id,
      ).toEqual([]);
    }
  });
});

describe('bucket access', () => {
  const withoutBucket = accessByFunction.filter((f) => !f.access.bucket && !f.access.signLinks);
  const withBucket = accessByFunction.filter((f) => f.access.bucket);

  it.each(withoutBucket)('$name (no bucket access) gets no S3 permission and no bucket name', (f) => {
    expect(allowedActions(f.fn).filter((a) => a.startsWith('s3:'))).toEqual([]);
    expect(environmentOf(f.fn)[RESOURCE_ENV.bucket]).toBeUndefined();
  });

  it.each(withBucket)(
    "$name (bucket '$access.bucket') gets that access's object actions, on its key prefix, and the name",
    (f) => {
      // Writers may abort their multipart uploads (the SDK's Upload does when a part fails); nobody lists or deletes.
      const [allowed, denied] =
        f.access.bucket === 'read'
          ? [['s3:GetObject'], 's3:PutObject']
          : [['s3:PutObject', 's3:AbortMultipartUpload'], 's3:GetObject'];
      // In any order: cdk.json's minimizePolicies sorts the actions of a statement.
      expect(
        allowedActions(f.fn)
          .filter((a) => a.startsWith('s3:'))
          .sort(),
      ).toEqual([...allowed].sort());
      for (const action of allowed)
        expect(resourcesAllowed(f.fn, action)).toEqual([bucketObjects(f.access.bucketKeyPrefix)]);
      expect(allowedActions(f.fn)).not.toContain(denied);
      const variables = environmentOf(f.fn);
      expect(variables[RESOURCE_ENV.bucket]).toBeDefined();
      expect(JSON.stringify(variables[RESOURCE_ENV.bucket])).toContain(JSON.stringify(bucketArn));
      // Path-style addressing is for the local S3 emulator only.
      expect(variables.S3_FORCE_PATH_STYLE).toBeUndefined();
    },
  );
});

describe('link signing', () => {
  const signers = accessByFunction.filter((f) => f.access.signLinks);
  const others = accessByFunction.filter((f) => !f.access.signLinks);
  const SIGNER_ROLE = { read: 'DownloadLinkSignerRole', write: 'UploadLinkSignerRole' } as const;
  const LINK_ACTION = { read: 's3:GetObject', write: 's3:PutObject' } as const;

  /** The function's logical id without CDK's hash: its child constructs' ids start with it. */
  const idPrefix = (f: (typeof signers)[number]) => f.fn.id.replace(/[0-9A-F]{8}$/, '');

  /** The function's link-signer role: its logical id and its properties, in the function's template. */
  function signerRoleOf(f: (typeof signers)[number]) {
    const roles = f.fn.view
      .ofType('AWS::IAM::Role')
      .filter(([roleId]) =>
        roleId.startsWith(`${idPrefix(f)}${SIGNER_ROLE[f.access.signLinks?.access ?? 'read']}`),
      );
    expect(roles, f.name).toHaveLength(1);
    const [roleId] = roles[0] as [string, CfnResource];
    return { roleId, props: f.fn.view.props(roleId) };
  }

  /** Every Allow statement attached to a role of the view, by its logical id. */
  const roleStatements = (view: TemplateView, roleId: string) =>
    view
      .ofType('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap(([policyId]) => (view.props(policyId).PolicyDocument as { Statement: unknown[] }).Statement);

  it('is what the download-files and upload endpoints do, and only they', () => {
    expect(signers.map((f) => [f.name, f.access.signLinks])).toEqual([
      ['routes/upload', { access: 'write', keyPrefix: IMPORT_UPLOADS_PREFIX }],
      ['analytics/download-files', { access: 'read', keyPrefix: ANALYTICS_FILES_PREFIX }],
    ]);
  });

  it.each(signers)('$name signs with a role that may only do what its links do, on their prefix', (f) => {
    const access = f.access.signLinks?.access ?? 'read';
    const { roleId } = signerRoleOf(f);
    expect(roleStatements(f.fn.view, roleId)).toEqual([
      {
        Effect: 'Allow',
        Action: LINK_ACTION[access],
        Resource: bucketObjects(f.access.signLinks?.keyPrefix),
      },
    ]);
  });

  it.each(signers)("$name's signer role trusts only the function's own role", (f) => {
    const { props } = signerRoleOf(f);
    const functionRole = (f.fn.view.props(f.fn.id).Role as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    expect(props.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRole',
          Principal: { AWS: { 'Fn::GetAtt': [functionRole, 'Arn'] } },
        },
      ],
    });
    expect(props.ManagedPolicyArns).toBeUndefined();
  });

  it.each(signers)('$name may assume exactly its signer role, knows its ARN, and has no S3 action', (f) => {
    const { roleId } = signerRoleOf(f);
    expect(resourcesAllowed(f.fn, 'sts:AssumeRole')).toEqual([{ 'Fn::GetAtt': [roleId, 'Arn'] }]);
    expect(allowedActions(f.fn).filter((a) => a.startsWith('sts:'))).toEqual(['sts:AssumeRole']);
    expect(allowedActions(f.fn).filter((a) => a.startsWith('s3:'))).toEqual([]);
    expect(environmentOf(f.fn)[RESOURCE_ENV.linkSignerRoleArn]).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(JSON.stringify(environmentOf(f.fn)[RESOURCE_ENV.bucket])).toContain(JSON.stringify(bucketArn));
  });

  it.each(others)('$name (no link signing) may assume no role and has no signer role', (f) => {
    expect(allowedActions(f.fn).filter((a) => a.startsWith('sts:'))).toEqual([]);
    expect(environmentOf(f.fn)[RESOURCE_ENV.linkSignerRoleArn]).toBeUndefined();
    expect(
      f.fn.view
        .ofType('AWS::IAM::Role')
        .filter(([roleId]) => roleId.startsWith(idPrefix(f)) && roleId.includes('LinkSigner')),
    ).toEqual([]);
  });
});

describe('queue access', () => {
  it.each(accessByFunction)('$name may send to exactly the queues (and DLQs) its access names', (f) => {
    const sendTo = [...new Set(f.access.sendTo ?? [])];
    const sendToDeadLetter = [...new Set(f.access.sendToDeadLetter ?? [])];
    expect(
      resourcesAllowed(f.fn, 'sqs:SendMessage')
        .map((r) => JSON.stringify(r))
        .sort(),
    ).toEqual(
      [...sendTo.map(queueArn), ...sendToDeadLetter.map(deadLetterArn)].map((r) => JSON.stringify(r)).sort(),
    );
    const variables = environmentOf(f.fn);
    for (const name of sendTo) expect(variables[QUEUES[name].urlEnv]).toEqual(queueUrl(name));
    for (const name of sendToDeadLetter)
      expect(variables[QUEUES[name].deadLetterUrlEnv]).toEqual(deadLetterUrl(name));
    const expectedEnvs = new Set([
      ...sendTo.map((name) => QUEUES[name].urlEnv),
      ...sendToDeadLetter.map((name) => QUEUES[name].deadLetterUrlEnv),
    ]);
    for (const env of QUEUE_URL_ENVS.filter((name) => !expectedEnvs.has(name))) {
      expect(variables[env], env).toBeUndefined();
    }
  });
});

describe('webhook secrets key', () => {
  const keyArn = importOf(stateful.exports.webhookSecretsKeyArnExportName);
  const kmsActions = (f: (typeof accessByFunction)[number]) =>
    allowedActions(f.fn).filter((action) => action.startsWith('kms:'));

  it('is what webhook creation and rotation (encrypt) and the delivery worker (decrypt) use, and only they', () => {
    expect(
      accessByFunction.filter((f) => f.access.webhookSecrets).map((f) => [f.name, f.access.webhookSecrets]),
    ).toEqual([
      ['webhooks/create', 'encrypt'],
      ['webhooks/rotate-secret', 'encrypt'],
      ['consumer deliverWebhooks', 'decrypt'],
    ]);
  });

  it.each(accessByFunction.filter((f) => f.access.webhookSecrets))(
    '$name may do its one KMS action on that key only, and knows its ARN',
    (f) => {
      const action = f.access.webhookSecrets === 'encrypt' ? 'kms:GenerateDataKey' : 'kms:Decrypt';
      expect(kmsActions(f)).toEqual([action]);
      expect(resourcesAllowed(f.fn, action)).toEqual([keyArn]);
      expect(environmentOf(f.fn)[RESOURCE_ENV.webhookSecretsKeyArn]).toEqual(keyArn);
    },
  );

  it.each(accessByFunction.filter((f) => !f.access.webhookSecrets))(
    '$name (no webhookSecrets access) gets no KMS permission and no key ARN',
    (f) => {
      expect(kmsActions(f)).toEqual([]);
      expect(environmentOf(f.fn)[RESOURCE_ENV.webhookSecretsKeyArn]).toBeUndefined();
    },
  );

  it.each(usedAuthKinds)('the %s authorizer gets no KMS permission', (kind) => {
    expect(allowedActions(authorizerFunctionOf(kind)).filter((a) => a.startsWith('kms:'))).toEqual([]);
  });
});

describe('shared handlers', () => {
  it('refuses endpoints that share a handler but declare different access', () => {
    const other = {
      ...importRoute,
      operationId: 'importRouteCopy',
      method: 'PUT' as const,
      access: { table: 'readWrite' as const },
    };
    expect(() => synthesize({}, { endpoints: [importRoute, other] })).toThrow(/different access/);
  });
});

describe('importRoute', () => {
  const id = functionOf(sliceOf(importRoute.module).name);

  it('is served, with the access this test expects', () => {
    expect(endpoints.map((e) => e.operationId)).toContain(importRoute.operationId);
    expect(importRoute.access).toEqual({ table: 'readWrite', bucket: 'write', sendTo: ['imports'] });
  });

  it('may put the payload object but not read objects back', () => {
    expect(allowedActions(id)).toContain('s3:PutObject');
    expect(allowedActions(id)).not.toContain('s3:GetObject');
    expect(environmentOf(id)[RESOURCE_ENV.bucket]).toBeDefined();
  });

  it('may send to the imports queue only, and knows its URL', () => {
    const sqs = allowStatements(id).filter((s) => s.Action.some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap((s) => s.Action)).toContain('sqs:SendMessage');
    expect(sqs.flatMap((s) => s.Resource)).toEqual([queueArn('imports')]);
    expect(environmentOf(id)[QUEUES.imports.urlEnv]).toEqual(queueUrl('imports'));
  });
});

describe('queue consumers', () => {
  const consumerView = viewOf(api.consumers);
  const mappings = consumerView.ofType('AWS::Lambda::EventSourceMapping');

  it('has one event source mapping per consumer and no others', () => {
    expect(mappings).toHaveLength(consumers.length);
  });

  it.each(consumers)(
    '$id consumes the $queue queue in batches of $batchSize, at most $maxConcurrency at once, with partial failures',
    (c) => {
      const { id } = consumerFunctionOf(c.id);
      const mine = mappings.filter(
        ([, m]) => JSON.stringify(m.Properties?.FunctionName) === JSON.stringify({ Ref: id }),
      );
      expect(mine).toHaveLength(1);
      expect(mine[0]?.[1].Properties).toMatchObject({
        EventSourceArn: queueArn(c.queue),
        BatchSize: c.batchSize,
        ScalingConfig: { MaximumConcurrency: c.maxConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    },
  );

  it.each(consumers)('$id runs $handler with its timeout and memory', (c) => {
    const fn = consumerFunctionOf(c.id);
    expect(fn.fn.sliceName).toBe(sliceOf(c.module).name);
    expect(fn.view.props(fn.id)).toMatchObject({ Timeout: c.timeoutSeconds, MemorySize: c.memorySize });
  });

  it.each(consumers)('$id runs with exactly its own V8 flags, if any', (c) => {
    expect(environmentOf(consumerFunctionOf(c.id)).NODE_OPTIONS).toBe(c.nodeOptions);
  });

  it.each(consumers)(
    "$id's queue keeps a message invisible at least six times the function's timeout",
    (c) => {
      const fn = consumerFunctionOf(c.id);
      const timeout = fn.view.props(fn.id).Timeout as number;
      expect(QUEUES[c.queue].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * timeout);
    },
  );

  it.each(consumers)('$id may receive and delete messages of its own queue only', (c) => {
    const id = consumerFunctionOf(c.id);
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'])
      expect(resourcesAllowed(id, action), action).toEqual([queueArn(c.queue)]);
  });

  it("refuses a consumer whose timeout is more than a sixth of its queue's visibility timeout", () => {
    const [first] = consumers;
    expect(first).toBeDefined();
    const slow = {
      ...(first as ConsumerDefinition),
      timeoutSeconds: QUEUES[first?.queue ?? 'imports'].visibilityTimeoutSeconds / 6 + 1,
    };
    expect(() => synthesize({}, { consumers: [slow] })).toThrow(/at least 6 times/);
  });

  it('the import worker may read import payloads but not write objects, and write the table', () => {
    const worker = consumers.find((c) => sliceOf(c.module).name === 'workers/import-routes');
    expect(worker, 'no consumer runs workers/import-routes').toBeDefined();
    const id = consumerFunctionOf(worker?.id ?? '');
    const actions = allowedActions(id);
    expect(actions).toContain('s3:GetObject');
    expect(actions).not.toContain('s3:PutObject');
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'])
      expect(actions).toContain(action);
    expect(environmentOf(id)).toMatchObject({
      [RESOURCE_ENV.table]: expect.anything(),
      [RESOURCE_ENV.bucket]: expect.anything(),
    });
  });

  it('the deletion worker deletes table items, queues the rest of a route to itself, and its queue keeps a message invisible six times its timeout', () => {
    const worker = consumers.find((c) => sliceOf(c.module).name === 'workers/delete-routes');
    expect(worker, 'no consumer runs workers/delete-routes').toBeDefined();
    const id = consumerFunctionOf(worker?.id ?? '');
    for (const action of ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'])
      expect(allowedActions(id)).toContain(action);
    expect(allowedActions(id).filter((action) => action.startsWith('s3:'))).toEqual([]);
    expect(resourcesAllowed(id, 'sqs:SendMessage')).toEqual([queueArn('deletions')]);
    const timeout = id.view.props(id.id).Timeout as number;
    expect(QUEUES.deletions.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * timeout);
  });
});

describe('gateway responses', () => {
  it.each(Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[])(
    '%s answers the error envelope',
    (type) => {
      const found = parent
        .ofType('AWS::ApiGateway::GatewayResponse')
        .filter(([, r]) => r.Properties?.ResponseType === type);
      expect(found).toHaveLength(1);
      const response = found[0]?.[1].Properties ?? {};
      const { statusCode } = GATEWAY_RESPONSES[type];
      expect(response.StatusCode).toBe(statusCode === undefined ? undefined : String(statusCode));
      expect(response.ResponseTemplates).toEqual({ 'application/json': gatewayResponseBody(type) });
      expect(response.ResponseParameters).toEqual({
        'gatewayresponse.header.Content-Type': "'application/json'",
      });
      expect(JSON.parse(gatewayResponseBody(type))).toMatchObject({
        status: 'error',
        data: { code: expect.any(Number) },
      });
    },
  );
});

describe('stage', () => {
  it('applies the configured throttling to every method of the stage', () => {
    const { apiTemplate: custom } = synthesize({ throttlingRateLimit: 123, throttlingBurstLimit: 45 });
    custom.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 123,
          ThrottlingBurstLimit: 45,
        }),
      ]),
    });
  });

  const throttled = endpoints.filter((e) => e.throttling);

  it('some endpoints have their own throttling', () => {
    expect(throttled.map((e) => e.operationId)).toContain(importRoute.operationId);
  });

  it.each(throttled)('$operationId: $method $path is throttled to its own limits', (endpoint) => {
    const settings = (parent.ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties?.MethodSettings ??
      []) as Record<string, unknown>[];
    // API Gateway's encoding of a resource path: '/dcs/{dc_id}' -> '/~1dcs~1{dc_id}'.
    const resourcePath = `/${endpoint.path.replaceAll('/', '~1')}`;
    const mine = settings.filter((m) => m.HttpMethod === endpoint.method && m.ResourcePath === resourcePath);
    expect(mine).toEqual([
      expect.objectContaining({
        HttpMethod: endpoint.method,
        ResourcePath: resourcePath,
        ThrottlingRateLimit: endpoint.throttling?.rateLimit,
        ThrottlingBurstLimit: endpoint.throttling?.burstLimit,
      }),
    ]);
    expect(endpoint.throttling?.rateLimit).toBeLessThan(DEFAULT_CONFIG.throttlingRateLimit);
  });

  it('has no method settings beyond the stage default and the throttled endpoints', () => {
    const settings = parent.ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties?.MethodSettings as unknown[];
    expect(settings).toHaveLength(throttled.length + 1);
  });

  it('is v1 with JSON access logs to its own log group with retention, and X-Ray tracing', () => {
    const stages = parent.ofType('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0]?.[1].Properties as Record<string, unknown>;
    expect(stage.StageName).toBe('v1');
    expect(stage.TracingEnabled).toBe(true);
    const access = stage.AccessLogSetting as { DestinationArn: unknown; Format: string };
    // The group's ARN built from its name, without the `:*` its Arn attribute ends with (API Gateway stores it
    // so; cdk.json's logGroupDestinationArnWithoutWildcard), so drift detection finds the stage in sync.
    expect(access.DestinationArn).toEqual({
      'Fn::Join': ['', expect.arrayContaining([':log-group:', { Ref: expect.any(String) }])],
    });
    expect(JSON.stringify(access.DestinationArn)).not.toContain(':*');
    const logGroup = JSON.stringify(access.DestinationArn).match(/\{"Ref":"(\w+)"\}\]\]\}$/)?.[1] ?? '';
    expect(parent.resources[logGroup]?.Type).toBe('AWS::Logs::LogGroup');
    expect(parent.props(logGroup).RetentionInDays).toBe(30);
    expect(JSON.parse(access.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
  });

  it('deploys after every nested stack of methods, under a deployment id that follows the endpoint list', () => {
    const [[deploymentId, deployment]] = parent.ofType('AWS::ApiGateway::Deployment') as [
      [string, CfnResource & { DependsOn?: string[] }],
    ];
    const groupIds = [...api.endpointGroups.values()].map((group) =>
      logicalIdOf(api, { node: { defaultChild: group.nestedStackResource } }),
    );
    expect(deployment.DependsOn ?? []).toEqual(expect.arrayContaining(groupIds));
    // A deployment snapshots the API: the gateway responses must exist when it is made.
    const responseIds = parent.ofType('AWS::ApiGateway::GatewayResponse').map(([id]) => id);
    expect(responseIds).toHaveLength(Object.keys(GATEWAY_RESPONSES).length);
    expect(deployment.DependsOn ?? []).toEqual(expect.arrayContaining(responseIds));
    const stage = parent.ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties as { DeploymentId: unknown };
    expect(stage.DeploymentId).toEqual({ Ref: deploymentId });

    const [first, ...rest] = endpoints;
    const fewer = synthesize({}, { endpoints: rest });
    const fewerId = Object.keys(resourcesOf(fewer.apiTemplate)).find(
      (id) => fewer.apiTemplate.toJSON().Resources[id].Type === 'AWS::ApiGateway::Deployment',
    );
    expect(first).toBeDefined();
    expect(fewerId).toBeDefined();
    expect(fewerId).not.toBe(deploymentId);
  });

  it('is a regional API', () => {
    apiTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it("sets the account's API Gateway CloudWatch role, retained, before the stage that logs through it", () => {
    const [[accountId, account]] = parent.ofType('AWS::ApiGateway::Account') as [[string, CfnResource]];
    expect(account.DeletionPolicy).toBe('Retain');
    const roleArn = parent.props(accountId).CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] };
    const roleId = roleArn['Fn::GetAtt'][0];
    expect(parent.resources[roleId]?.DeletionPolicy).toBe('Retain');
    expect(JSON.stringify(parent.props(roleId).AssumeRolePolicyDocument)).toContain(
      'apigateway.amazonaws.com',
    );
    const [[, stage]] = parent.ofType('AWS::ApiGateway::Stage') as [
      [string, CfnResource & { DependsOn?: string[] }],
    ];
    expect(stage.DependsOn).toContain(accountId);
  });

  it('leaves the account role to the account when apiGatewayAccountRole is false', () => {
    const without = synthesize({ apiGatewayAccountRole: false });
    expect(without.apiTemplate.findResources('AWS::ApiGateway::Account')).toEqual({});
  });

  it('publishes a new deployment when a REST API setting such as compression changes', () => {
    const deploymentIdOf = (stack: Stack) =>
      Object.entries(resourcesOf(Template.fromStack(stack))).find(
        ([, resource]) => resource.Type === 'AWS::ApiGateway::Deployment',
      )?.[0];
    const app = testApp();
    const changed = defineDeliveryRoutes(app, DEFAULT_CONFIG).api;
    (changed.api.node.defaultChild as CfnRestApi).minimumCompressionSize = 4096;
    const changedId = deploymentIdOf(changed);
    expect(changedId).toMatch(/^Deployment/);
    expect(changedId).not.toBe(deploymentIdOf(api));
  });

  it('outputs the API URL', () => {
    apiTemplate.hasOutput('ApiUrl', {});
  });
});

describe('per-account limits', () => {
  it('takes usage keys from the authorizer', () => {
    expect(parent.props(apiId).ApiKeySourceType).toBe('AUTHORIZER');
  });

  it('throttles each account by a usage plan on the stage, 50 requests/s with a burst of 100 by default', () => {
    expect(DEFAULT_CONFIG).toMatchObject({
      accountThrottlingRateLimit: 50,
      accountThrottlingBurstLimit: 100,
    });
    const plans = parent.ofType('AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(1);
    const [[planId, plan]] = plans as [[string, CfnResource]];
    const [[stageId]] = parent.ofType('AWS::ApiGateway::Stage') as [[string, CfnResource]];
    expect(plan.Properties).toMatchObject({
      Throttle: { RateLimit: 50, BurstLimit: 100 },
      ApiStages: [{ ApiId: { Ref: apiId }, Stage: { Ref: stageId } }],
    });
    expect(plan.Properties?.Quota).toBeUndefined();
    // The admin CLI registers accounts' keys in it by this id; no key is declared in the templates.
    expect(apiTemplate.findOutputs('UsagePlanId').UsagePlanId?.Value).toEqual({ Ref: planId });
    expect(parent.ofType('AWS::ApiGateway::ApiKey')).toEqual([]);
  });

  it('takes the account throttle and the webhook limit from CDK context', () => {
    const custom = synthesize({
      accountThrottlingRateLimit: 7,
      accountThrottlingBurstLimit: 9,
      maxWebhooksPerAccount: 3,
    });
    custom.apiTemplate.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 7, BurstLimit: 9 },
    });
    const create = custom.api.endpointFunctions.get('webhooks/create') as ServiceFunction;
    const variables = resolvedVariables(create);
    expect(variables.MAX_WEBHOOKS_PER_ACCOUNT).toBe('3');
  });

  it('tells the webhook create function the default limit of 20, and no other function', () => {
    for (const [handler, fn] of api.endpointFunctions) {
      expect(resolvedVariables(fn).MAX_WEBHOOKS_PER_ACCOUNT, handler).toBe(
        handler === 'webhooks/create' ? '20' : undefined,
      );
    }
  });

  it('answers an account without a registered usage key with 403 and 1009', () => {
    const responses = parent.ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties ?? {});
    expect(responses.find((r) => r.ResponseType === 'INVALID_API_KEY')).toMatchObject({ StatusCode: '403' });
    expect(JSON.parse(gatewayResponseBody('INVALID_API_KEY')).data.code).toBe(1009);
    expect(JSON.parse(gatewayResponseBody('THROTTLED')).data.code).toBe(1008);
  });
});

describe('API alarms', () => {
  const alarms = parent.ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties ?? {});

  it('alarms when more than 1% of requests answer 5xx in 2 of 3 five-minute periods', () => {
    const [rate] = alarms.filter((a) => JSON.stringify(a.Metrics ?? []).includes('5XXError'));
    expect(rate).toMatchObject({
      Threshold: API_ALARMS.serverErrorRatePercent,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [alarmTopicArn],
    });
    const metrics = JSON.stringify(rate?.Metrics);
    expect(metrics).toContain('100 * errors / requests');
    expect(metrics).toContain('"Count"');
  });

  it('alarms when p99 latency passes the limit in 2 of 3 five-minute periods', () => {
    const [latency] = alarms.filter((a) => a.MetricName === 'Latency');
    expect(latency).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      ExtendedStatistic: 'p99',
      Period: 300,
      Threshold: API_ALARMS.p99LatencyMs,
      DatapointsToAlarm: 2,
      AlarmActions: [alarmTopicArn],
      OKActions: [alarmTopicArn],
    });
    expect(JSON.stringify(latency?.Dimensions)).toContain('"Stage"');
  });
});
