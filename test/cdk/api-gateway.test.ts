import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRestApi } from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import { AUTHORIZERS, checkedByGateway } from '../../functions/api/authorizers';
import type { EndpointDefinition } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import { importRoute } from '../../functions/api/routes/index';
import { getTrackingPage, getUnsubscribePage, unsubscribe } from '../../functions/api/tracking/index';
import { METHOD_CEILING_ACCOUNTS } from '../../lib/api-stack';
import { DEFAULT_CONFIG, defineDeliveryRoutes } from '../../lib/delivery-routes';
import {
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseBody,
} from '../../lib/gateway-responses';
import { sliceOf } from '../../lib/slices';
import {
  allOfType,
  api,
  apiId,
  apiTemplate,
  authorizerFunctionOf,
  functionArn,
  functionOf,
  methodOf,
  methods,
  parent,
  resolvedFromParent,
  usedAuthKinds,
} from './api-template';
import { type CfnResource, logicalIdOf, resourcesOf, synthesize, testApp } from './synth';

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
        // Every 429 says when to retry: the slowest default rate (2/s) refills a request within a second.
        ...(statusCode === 429 ? { 'gatewayresponse.header.Retry-After': "'1'" } : {}),
      });
      expect(JSON.parse(gatewayResponseBody(type))).toMatchObject({
        status: 'error',
        data: { code: expect.any(Number) },
      });
    },
  );

  it('give the throttling answers a Retry-After the slowest rate of the stage refills a request within', () => {
    const retryAfterOf = (template: Template) =>
      Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'))
        .map((resource) => (resource as CfnResource).Properties ?? {})
        .filter((properties) => ['THROTTLED', 'QUOTA_EXCEEDED'].includes(properties.ResponseType as string))
        .map((properties) => {
          const parameters = properties.ResponseParameters as Record<string, string>;
          return parameters['gatewayresponse.header.Retry-After'];
        });
    expect(retryAfterOf(apiTemplate)).toEqual(["'1'", "'1'"]);
    // An account limited to a request every 4 s is told to wait 4 s.
    expect(retryAfterOf(synthesize({ accountThrottlingRateLimit: 0.25 }).apiTemplate)).toEqual([
      "'4'",
      "'4'",
    ]);
    expect(retryAfterOf(synthesize({ throttlingRateLimit: 0.4 }).apiTemplate)).toEqual(["'3'", "'3'"]);
  });
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
  const accountThrottled = throttled.filter((e) => e.auth === 'apiKey');

  /** The stage's method settings of an endpoint's method. */
  const methodSettingsOf = (endpoint: EndpointDefinition) => {
    const settings = (parent.ofType('AWS::ApiGateway::Stage')[0]?.[1].Properties?.MethodSettings ??
      []) as Record<string, unknown>[];
    // API Gateway's encoding of a resource path: '/dcs/{dc_id}' -> '/~1dcs~1{dc_id}'.
    const resourcePath = `/${endpoint.path.replaceAll('/', '~1')}`;
    return settings.filter((m) => m.HttpMethod === endpoint.method && m.ResourcePath === resourcePath);
  };

  it('some endpoints have their own throttling, an account’s and a public one', () => {
    expect(accountThrottled.map((e) => e.operationId)).toContain(importRoute.operationId);
    expect(throttled.filter((e) => e.auth === 'none').map((e) => e.operationId)).toEqual([
      getTrackingPage.operationId,
      getUnsubscribePage.operationId,
      unsubscribe.operationId,
    ]);
  });

  it.each([getTrackingPage, getUnsubscribePage, unsubscribe])(
    'throttles the public $operationId on its own, all its callers together, with no authorizer or key',
    (endpoint) => {
      const { rateLimit, burstLimit } = endpoint.throttling;
      expect(methodSettingsOf(endpoint)).toEqual([
        expect.objectContaining({ ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit }),
      ]);
      // Below the stage's default, which every other public method gets.
      expect(rateLimit).toBeLessThan(DEFAULT_CONFIG.throttlingRateLimit);
      expect(burstLimit).toBeLessThan(DEFAULT_CONFIG.throttlingBurstLimit);
      expect(methodOf(endpoint).props).toMatchObject({
        AuthorizationType: 'NONE',
        ApiKeyRequired: false,
      });
    },
  );

  it.each(accountThrottled)(
    '$operationId: $method $path has a ceiling for all accounts, METHOD_CEILING_ACCOUNTS times one account’s limit',
    (endpoint) => {
      const mine = methodSettingsOf(endpoint);
      const { rateLimit = 0, burstLimit = 0 } = endpoint.throttling ?? {};
      expect(mine).toEqual([
        expect.objectContaining({
          ThrottlingRateLimit: rateLimit * METHOD_CEILING_ACCOUNTS,
          ThrottlingBurstLimit: burstLimit * METHOD_CEILING_ACCOUNTS,
        }),
      ]);
      // Within the stage's own limits, which the method's setting replaces.
      expect(rateLimit * METHOD_CEILING_ACCOUNTS).toBeLessThanOrEqual(DEFAULT_CONFIG.throttlingRateLimit);
      expect(burstLimit * METHOD_CEILING_ACCOUNTS).toBeLessThanOrEqual(DEFAULT_CONFIG.throttlingBurstLimit);
    },
  );

  it('keeps every ceiling within the stage’s limits when those are set lower', () => {
    const { apiTemplate: custom } = synthesize({ throttlingRateLimit: 12, throttlingBurstLimit: 34 });
    const [stage] = Object.values(resourcesOf(custom)).filter((r) => r.Type === 'AWS::ApiGateway::Stage');
    for (const setting of (stage?.Properties?.MethodSettings ?? []) as Record<string, number>[]) {
      expect(setting.ThrottlingRateLimit).toBeLessThanOrEqual(12);
      expect(setting.ThrottlingBurstLimit).toBeLessThanOrEqual(34);
    }
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
