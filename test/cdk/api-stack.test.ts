import { describe, expect, it } from 'vitest';
import { consumers } from '../../functions/consumers';
import { AUTHORIZERS, checkedByGateway } from '../../functions/endpoints/authorizers';
import type { EndpointDefinition, ResourceAccess } from '../../functions/endpoints/define';
import { endpoints } from '../../functions/endpoints/index';
import { importRoute } from '../../functions/endpoints/routes';
import { BUCKET_NAME_ENV, QUEUES, type QueueName, TABLE_NAME_ENV } from '../../functions/shared/resources';
import {
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseBody,
} from '../../lib/gateway-responses';
import { type CfnResource, logicalIdOf, resourcesOf, synthesize } from './synth';

const { api, apiTemplate, stateful } = synthesize();
const resources = resourcesOf(apiTemplate);
const apiId = logicalIdOf(api, api.api);

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

function ofType(type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

function props(logicalId: string): Record<string, unknown> {
  const resource = resources[logicalId];
  if (!resource) throw new Error(`no resource ${logicalId}`);
  return resource.Properties ?? {};
}

function isRootRef(ref: unknown): boolean {
  return JSON.stringify(ref) === JSON.stringify({ 'Fn::GetAtt': [apiId, 'RootResourceId'] });
}

/** Full path of an AWS::ApiGateway::Resource (or the root) from its ParentId chain. */
function pathOf(ref: unknown): string {
  if (isRootRef(ref)) return '';
  const id = (ref as { Ref: string }).Ref;
  const { ParentId, PathPart } = props(id) as { ParentId: unknown; PathPart: string };
  return `${pathOf(ParentId)}/${PathPart}`;
}

/** 'GET /dcs/{dc_id}/drivers' -> the method's properties. */
const methods = new Map(
  ofType('AWS::ApiGateway::Method').map(([, r]) => {
    const p = r.Properties as { HttpMethod: string; ResourceId: unknown };
    return [`${p.HttpMethod} ${pathOf(p.ResourceId) || '/'}`, r.Properties as Record<string, unknown>];
  }),
);

function functionIdOf(handlerModule: string): string {
  const fn = api.endpointFunctions.get(handlerModule);
  if (!fn) throw new Error(`no function for handler ${handlerModule}`);
  return logicalIdOf(api, fn);
}

function authorizerFunctionIdOf(kind: EndpointDefinition['auth']): string {
  const fn = api.authorizerFunctions.get(kind);
  if (!fn) throw new Error(`no authorizer function for ${kind}`);
  return logicalIdOf(api, fn);
}

function consumerFunctionIdOf(consumerId: string): string {
  const fn = api.consumerFunctions.get(consumerId);
  if (!fn) throw new Error(`no function for consumer ${consumerId}`);
  return logicalIdOf(api, fn);
}

const functionArn = (id: string) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] });

interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
}

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** Every Allow statement of any policy attached to the function's role, actions and resources as arrays. */
function allowStatements(functionLogicalId: string): Statement[] {
  const role = (props(functionLogicalId).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties?.Roles).includes(JSON.stringify({ Ref: role })))
    .flatMap(([id]) => (props(id).PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
    .filter((s) => s.Effect === 'Allow')
    .map((s) => ({
      Effect: 'Allow',
      Action: asArray(s.Action as string | string[]),
      Resource: asArray(s.Resource),
    }));
}

/** Every action any policy attached to the function's role allows. */
function allowedActions(functionLogicalId: string): string[] {
  return allowStatements(functionLogicalId).flatMap((s) => s.Action);
}

/** The resources the function may perform `action` on. */
function resourcesAllowed(functionLogicalId: string, action: string): unknown[] {
  return allowStatements(functionLogicalId)
    .filter((s) => s.Action.includes(action))
    .flatMap((s) => s.Resource);
}

function environmentOf(functionLogicalId: string): Record<string, unknown> {
  return (props(functionLogicalId).Environment as { Variables: Record<string, unknown> }).Variables;
}

const importOf = (exportName: string) => ({ 'Fn::ImportValue': exportName });
const bucketArn = importOf(stateful.exports.bucket.bucketArnExportName);
const bucketObjects = { 'Fn::Join': ['', [bucketArn, '/*']] };
const queueArn = (name: QueueName) => importOf(stateful.exports.queues[name].queueArnExportName);
const queueUrl = (name: QueueName) => importOf(stateful.exports.queues[name].queueUrlExportName);
const deadLetterArn = (name: QueueName) => importOf(stateful.exports.queues[name].deadLetterArnExportName);
const deadLetterUrl = (name: QueueName) => importOf(stateful.exports.queues[name].deadLetterUrlExportName);
const QUEUE_URL_ENVS = Object.values(QUEUES).flatMap((q) => [q.urlEnv, q.deadLetterUrlEnv]);

const handlers = [...new Set(endpoints.map((e) => e.handler))];
/** Auth kinds with a gateway authorizer; driver tokens are checked by the handlers themselves. */
const usedAuthKinds = [...new Set(endpoints.map((e) => e.auth).filter(checkedByGateway))];

/** Every function with its declared access: one per endpoint handler, then one per consumer. */
const accessByFunction: { name: string; logicalId: string; access: ResourceAccess }[] = [
  ...handlers.map((handler) => ({
    name: handler,
    logicalId: functionIdOf(handler),
    access: endpoints.find((e) => e.handler === handler)?.access ?? {},
  })),
  ...consumers.map((c) => ({
    name: `consumer ${c.id}`,
    logicalId: consumerFunctionIdOf(c.id),
    access: c.access,
  })),
];

describe('API methods', () => {
  it.each(endpoints)('$operationId: $method $path exists with its operation name', (endpoint) => {
    const method = methods.get(`${endpoint.method} ${endpoint.path}`);
    expect(method, `no ${endpoint.method} method on ${endpoint.path}`).toBeDefined();
    expect(method?.OperationName).toBe(endpoint.operationId);
  });

  it.each(endpoints)('$operationId: integrates as AWS_PROXY with the function of $handler', (endpoint) => {
    const integration = methods.get(`${endpoint.method} ${endpoint.path}`)?.Integration as Record<
      string,
      unknown
    >;
    expect(integration.Type).toBe('AWS_PROXY');
    expect(integration.IntegrationHttpMethod).toBe('POST');
    const uri = JSON.stringify(integration.Uri);
    expect(uri).toContain(':lambda:path/2015-03-31/functions/');
    expect(uri).toContain(functionArn(functionIdOf(endpoint.handler)));
  });

  it.each(endpoints)(
    '$operationId: auth $auth is enforced by the matching authorizer, if the gateway checks it',
    (endpoint) => {
      const method = methods.get(`${endpoint.method} ${endpoint.path}`) as Record<string, unknown>;
      if (!checkedByGateway(endpoint.auth)) {
        expect(method.AuthorizationType).toBe('NONE');
        expect(method.AuthorizerId).toBeUndefined();
        return;
      }
      expect(method.AuthorizationType).toBe('CUSTOM');
      const authorizer = props((method.AuthorizerId as { Ref: string }).Ref);
      expect(JSON.stringify(authorizer.AuthorizerUri)).toContain(
        functionArn(authorizerFunctionIdOf(endpoint.auth)),
      );
    },
  );

  it('has no methods beyond the endpoint list', () => {
    const expected = new Set(endpoints.map((e) => `${e.method} ${e.path}`));
    expect([...methods.keys()].filter((key) => !expected.has(key))).toEqual([]);
    expect(methods.size).toBe(endpoints.length);
  });
});

describe('authorizers', () => {
  it.each(usedAuthKinds)(
    '%s: REQUEST authorizer on the Authorization header, cached as AUTHORIZERS says',
    (kind) => {
      const definition = AUTHORIZERS[kind];
      expect(definition, `AUTHORIZERS has no ${kind}`).toBeDefined();
      const authorizers = ofType('AWS::ApiGateway::Authorizer').filter(([, r]) =>
        JSON.stringify(r.Properties?.AuthorizerUri).includes(functionArn(authorizerFunctionIdOf(kind))),
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
    const expected = [
      ...handlers.map(functionIdOf),
      ...usedAuthKinds.map(authorizerFunctionIdOf),
      ...consumers.map((c) => consumerFunctionIdOf(c.id)),
    ];
    expect(new Set(expected).size).toBe(handlers.length + usedAuthKinds.length + consumers.length);
    expect(
      ofType('AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual(expected.sort());
  });

  it('endpoints that share a handler share its function', () => {
    const targets = new Set(
      [...methods.values()].map((m) => JSON.stringify((m.Integration as { Uri: unknown }).Uri)),
    );
    expect(targets.size).toBe(handlers.length);
  });

  it('gives each function exactly one invoke permission, scoped to this API', () => {
    for (const handler of handlers) {
      const id = functionIdOf(handler);
      const permissions = ofType('AWS::Lambda::Permission').filter(
        ([, p]) => JSON.stringify(p.Properties?.FunctionName) === functionArn(id),
      );
      expect(permissions, handler).toHaveLength(1);
      expect(permissions[0]?.[1].Properties?.Principal).toBe('apigateway.amazonaws.com');
      expect(JSON.stringify(permissions[0]?.[1].Properties?.SourceArn)).toContain(
        JSON.stringify({ Ref: apiId }),
      );
    }
  });

  it('every endpoint and authorizer function has 1024 MB and 10 s', () => {
    for (const id of [...handlers.map(functionIdOf), ...usedAuthKinds.map(authorizerFunctionIdOf)]) {
      expect(props(id), id).toMatchObject({ MemorySize: 1024, Timeout: 10 });
    }
  });

  it('every function runs nodejs22.x on arm64 with tracing, source maps and its own log group', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect(fn.Properties, id).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
      });
      expect(environmentOf(id).NODE_OPTIONS, id).toMatch(/^--enable-source-maps( |$)/);
      const logGroup = (props(id).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(resources[logGroup]?.Type).toBe('AWS::Logs::LogGroup');
      expect(props(logGroup).RetentionInDays).toBe(30);
    }
  });

  it('no function role carries an AWS managed policy', () => {
    for (const [id, role] of ofType('AWS::IAM::Role')) {
      expect(role.Properties?.ManagedPolicyArns, id).toBeUndefined();
    }
  });
});

describe('table access', () => {
  const byAccess = (access: EndpointDefinition['access']['table']) => [
    ...new Set(endpoints.filter((e) => e.access.table === access).map((e) => e.handler)),
  ];

  it.each(byAccess('read'))("%s (access 'read') may only read the table", (handler) => {
    const dynamo = allowedActions(functionIdOf(handler)).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).toContain('dynamodb:GetItem');
    expect(dynamo).toContain('dynamodb:Query');
    expect(dynamo.filter((a) => !READ_ACTIONS.has(a))).toEqual([]);
    expect(props(functionIdOf(handler)).Environment).toMatchObject({
      Variables: { [TABLE_NAME_ENV]: expect.anything() },
    });
  });

  it.each(byAccess('readWrite'))("%s (access 'readWrite') may read and write the table", (handler) => {
    const actions = allowedActions(functionIdOf(handler));
    for (const action of [...WRITE_ACTIONS, 'dynamodb:GetItem', 'dynamodb:Query'])
      expect(actions).toContain(action);
    expect(props(functionIdOf(handler)).Environment).toMatchObject({
      Variables: { [TABLE_NAME_ENV]: expect.anything() },
    });
  });

  it.each(byAccess(undefined))(
    '%s (no table access) gets no DynamoDB permission and no table name',
    (handler) => {
      expect(allowedActions(functionIdOf(handler)).filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
      const variables = (props(functionIdOf(handler)).Environment as { Variables: Record<string, unknown> })
        .Variables;
      expect(variables[TABLE_NAME_ENV]).toBeUndefined();
    },
  );

  it.each(usedAuthKinds)('the %s authorizer may only read the table', (kind) => {
    const dynamo = allowedActions(authorizerFunctionIdOf(kind)).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).toContain('dynamodb:GetItem');
    expect(dynamo.filter((a) => !READ_ACTIONS.has(a))).toEqual([]);
  });

  it('no function role allows a wildcard action', () => {
    for (const [id] of ofType('AWS::Lambda::Function')) {
      expect(
        allowedActions(id).filter((a) => a.includes('*')),
        id,
      ).toEqual([]);
    }
  });
});

describe('bucket access', () => {
  const withoutBucket = accessByFunction.filter((f) => !f.access.bucket);
  const withBucket = accessByFunction.filter((f) => f.access.bucket);

  it.each(withoutBucket)('$name (no bucket access) gets no S3 permission and no bucket name', (f) => {
    expect(allowedActions(f.logicalId).filter((a) => a.startsWith('s3:'))).toEqual([]);
    expect(environmentOf(f.logicalId)[BUCKET_NAME_ENV]).toBeUndefined();
  });

  it.each(withBucket)("$name (bucket '$access.bucket') gets that one object action and the name", (f) => {
    const [allowed, denied] =
      f.access.bucket === 'read' ? ['s3:GetObject', 's3:PutObject'] : ['s3:PutObject', 's3:GetObject'];
    expect(allowedActions(f.logicalId).filter((a) => a.startsWith('s3:'))).toEqual([allowed]);
    expect(resourcesAllowed(f.logicalId, allowed)).toEqual([bucketObjects]);
    expect(allowedActions(f.logicalId)).not.toContain(denied);
    const variables = environmentOf(f.logicalId);
    expect(variables[BUCKET_NAME_ENV]).toBeDefined();
    expect(JSON.stringify(variables[BUCKET_NAME_ENV])).toContain(JSON.stringify(bucketArn));
    // Path-style addressing is for the local S3 emulator only.
    expect(variables.S3_FORCE_PATH_STYLE).toBeUndefined();
  });
});

describe('queue access', () => {
  it.each(accessByFunction)('$name may send to exactly the queues (and DLQs) its access names', (f) => {
    const sendTo = [...new Set(f.access.sendTo ?? [])];
    const sendToDeadLetter = [...new Set(f.access.sendToDeadLetter ?? [])];
    expect(
      resourcesAllowed(f.logicalId, 'sqs:SendMessage')
        .map((r) => JSON.stringify(r))
        .sort(),
    ).toEqual(
      [...sendTo.map(queueArn), ...sendToDeadLetter.map(deadLetterArn)].map((r) => JSON.stringify(r)).sort(),
    );
    const variables = environmentOf(f.logicalId);
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
  const id = functionIdOf(importRoute.handler);

  it('is served, with the access this test expects', () => {
    expect(endpoints.map((e) => e.operationId)).toContain(importRoute.operationId);
    expect(importRoute.access).toEqual({ table: 'readWrite', bucket: 'write', sendTo: ['imports'] });
  });

  it('may put the payload object but not read objects back', () => {
    expect(allowedActions(id)).toContain('s3:PutObject');
    expect(allowedActions(id)).not.toContain('s3:GetObject');
    expect(environmentOf(id)[BUCKET_NAME_ENV]).toBeDefined();
  });

  it('may send to the imports queue only, and knows its URL', () => {
    const sqs = allowStatements(id).filter((s) => s.Action.some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap((s) => s.Action)).toContain('sqs:SendMessage');
    expect(sqs.flatMap((s) => s.Resource)).toEqual([queueArn('imports')]);
    expect(environmentOf(id)[QUEUES.imports.urlEnv]).toEqual(queueUrl('imports'));
  });
});

describe('queue consumers', () => {
  const mappings = ofType('AWS::Lambda::EventSourceMapping');

  it('has one event source mapping per consumer and no others', () => {
    expect(mappings).toHaveLength(consumers.length);
  });

  it.each(consumers)(
    '$id consumes the $queue queue in batches of $batchSize, at most $maxConcurrency at once, with partial failures',
    (c) => {
      const id = consumerFunctionIdOf(c.id);
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
    const id = consumerFunctionIdOf(c.id);
    expect(api.consumerFunctions.get(c.id)?.handlerModule).toBe(c.handler);
    expect(props(id)).toMatchObject({ Timeout: c.timeoutSeconds, MemorySize: c.memorySize });
  });

  it.each(consumers)('$id runs with source maps plus exactly its own V8 flags', (c) => {
    expect(environmentOf(consumerFunctionIdOf(c.id)).NODE_OPTIONS).toBe(
      ['--enable-source-maps', c.nodeOptions].filter(Boolean).join(' '),
    );
  });

  it.each(consumers)("$id times out before its queue's visibility timeout", (c) => {
    const timeout = props(consumerFunctionIdOf(c.id)).Timeout as number;
    expect(timeout).toBeLessThan(QUEUES[c.queue].visibilityTimeoutSeconds);
  });

  it.each(consumers)('$id may receive and delete messages of its own queue only', (c) => {
    const id = consumerFunctionIdOf(c.id);
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'])
      expect(resourcesAllowed(id, action), action).toEqual([queueArn(c.queue)]);
  });

  it("refuses a consumer that does not time out before its queue's visibility timeout", () => {
    const [first] = consumers;
    if (!first) return;
    const slow = { ...first, timeoutSeconds: QUEUES[first.queue].visibilityTimeoutSeconds };
    expect(() => synthesize({}, { consumers: [slow] })).toThrow(/visibility timeout/);
  });

  it('the import worker may read import payloads but not write objects, and write the table', () => {
    const worker = consumers.find((c) => c.handler === 'workers/import-routes');
    expect(worker, 'no consumer runs workers/import-routes').toBeDefined();
    const id = consumerFunctionIdOf(worker?.id ?? '');
    const actions = allowedActions(id);
    expect(actions).toContain('s3:GetObject');
    expect(actions).not.toContain('s3:PutObject');
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'])
      expect(actions).toContain(action);
    expect(environmentOf(id)).toMatchObject({
      [TABLE_NAME_ENV]: expect.anything(),
      [BUCKET_NAME_ENV]: expect.anything(),
    });
  });
});

describe('gateway responses', () => {
  it.each(Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[])(
    '%s answers the error envelope',
    (type) => {
      const found = ofType('AWS::ApiGateway::GatewayResponse').filter(
        ([, r]) => r.Properties?.ResponseType === type,
      );
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
      MethodSettings: [
        { HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 123, ThrottlingBurstLimit: 45 },
      ],
    });
  });

  it('is v1 with JSON access logs to its own log group and X-Ray tracing', () => {
    const stages = ofType('AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0]?.[1].Properties as Record<string, unknown>;
    expect(stage.StageName).toBe('v1');
    expect(stage.TracingEnabled).toBe(true);
    const access = stage.AccessLogSetting as {
      DestinationArn: { 'Fn::GetAtt': [string, string] };
      Format: string;
    };
    expect(resources[access.DestinationArn['Fn::GetAtt'][0]]?.Type).toBe('AWS::Logs::LogGroup');
    expect(JSON.parse(access.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
  });

  it('is a regional API without the account-wide CloudWatch role', () => {
    apiTemplate.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    expect(ofType('AWS::ApiGateway::Account')).toEqual([]);
  });

  it('outputs the API URL', () => {
    apiTemplate.hasOutput('ApiUrl', {});
  });
});
