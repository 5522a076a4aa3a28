import { describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/api/index';
import { consumers } from '../../functions/workers/index';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { DEFAULT_CONFIG, defineDeliveryRoutes, readConfig } from '../../lib/delivery-routes';
import { gatewayResponseBody } from '../../lib/gateway-responses';
import { sliceOf } from '../../lib/slices';
import { API_ALARMS } from '../../lib/watches';
import {
  alarmTopicArn,
  api,
  apiId,
  apiTemplate,
  parent,
  resolvedFromParent,
  resolvedVariables,
} from './api-template';
import { type CfnResource, synthesize, testApp } from './synth';

// The API's alarms, its per-account limits, and two deployments side by side; its methods, authorizers,
// gateway answers and stage are in api-gateway.test.ts.

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

  /** The API stages of the accounts' usage plan. */
  const planStages = () => {
    const [[, plan]] = parent.ofType('AWS::ApiGateway::UsagePlan') as [[string, CfnResource]];
    return (plan.Properties?.ApiStages ?? []) as { Throttle?: Record<string, unknown> }[];
  };

  it.each(endpoints.filter((e) => e.throttling && e.auth === 'apiKey'))(
    '$operationId: limits each account on $method $path by a per-method throttle of the usage plan',
    (endpoint) => {
      const [stage] = planStages();
      // Keyed /<resource path>/<HTTP method>, as CDK's ThrottlingPerMethod writes it.
      expect(stage?.Throttle?.[`${endpoint.path}/${endpoint.method}`]).toEqual({
        RateLimit: endpoint.throttling?.rateLimit,
        BurstLimit: endpoint.throttling?.burstLimit,
      });
      // The key is the account's usage key: only an API-key method has one.
      expect(endpoint.auth).toBe('apiKey');
    },
  );

  it('has per-method throttles of the plan for the throttled API-key endpoints only', () => {
    const [stage] = planStages();
    expect(Object.keys(stage?.Throttle ?? {}).sort()).toEqual(
      endpoints
        .filter((e) => e.throttling && e.auth === 'apiKey')
        .map((e) => `${e.path}/${e.method}`)
        .sort(),
    );
  });

  it('refuses throttling on an endpoint without an account key: no usage key would hold it per account', () => {
    const driverApp = endpoints.find((e) => e.auth === 'driverToken');
    if (!driverApp) throw new Error('no driver-token endpoint');
    expect(() =>
      defineDeliveryRoutes(testApp(), DEFAULT_CONFIG, [
        { ...driverApp, throttling: { rateLimit: 1, burstLimit: 1 } },
      ]),
    ).toThrow(/per-account limit needs the account's usage key/);
  });

  it('takes the account throttle, the webhook limit and the proofs’ retention from CDK context', () => {
    const custom = synthesize({
      accountThrottlingRateLimit: 7,
      accountThrottlingBurstLimit: 9,
      maxWebhooksPerAccount: 3,
      proofRetentionDays: 2555,
    });
    custom.apiTemplate.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 7, BurstLimit: 9 },
    });
    const create = custom.api.endpointFunctions.get('webhooks/create') as ServiceFunction;
    const variables = resolvedVariables(create);
    expect(variables.MAX_WEBHOOKS_PER_ACCOUNT).toBe('3');
    // The records of proofs and delivery notes end when the bucket's rule expires their objects.
    const evidence = custom.api.endpointFunctions.get('routes/evidence') as ServiceFunction;
    expect(resolvedVariables(evidence).PROOF_RETENTION_DAYS).toBe('2555');
    expect(variables.PROOF_RETENTION_DAYS).toBeUndefined();
  });

  it('tells the webhook create function the default limit of 20, and no other function', () => {
    for (const [handler, fn] of api.endpointFunctions) {
      expect(resolvedVariables(fn).MAX_WEBHOOKS_PER_ACCOUNT, handler).toBe(
        handler === 'webhooks/create' ? '20' : undefined,
      );
    }
  });

  it('gives API_URL, the stage’s URL, to the functions of the endpoints and consumers that link to the API, and to no other', () => {
    const linking = new Set(
      [...endpoints, ...consumers].filter((e) => e.linksToApi).map((e) => sliceOf(e.module).name),
    );
    expect([...linking].sort()).toEqual([
      'driver-app/attempt',
      'driver-app/location',
      'driver-app/start',
      'routes/cancel-waypoint',
      'routes/reorder-waypoints',
      'routes/start',
      'routes/waypoint',
      'routes/waypoints',
      'workers/import-routes',
      'workers/optimize-routes',
      'workers/send-notifications',
    ]);
    const stageUrl = {
      'Fn::Join': [
        '',
        [
          'https://',
          { Ref: apiId },
          '.execute-api.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          '/v1/',
        ],
      ],
    };
    for (const [handler, fn] of api.endpointFunctions) {
      const value = resolvedVariables(fn).API_URL;
      expect(value && resolvedFromParent(fn.stack, value), handler).toEqual(
        linking.has(handler) ? stageUrl : undefined,
      );
    }
    for (const fn of api.consumerFunctions.values()) {
      const value = resolvedVariables(fn).API_URL;
      expect(value && resolvedFromParent(fn.stack, value), fn.sliceName).toEqual(
        linking.has(fn.sliceName) ? stageUrl : undefined,
      );
    }
    for (const fn of api.authorizerFunctions.values())
      expect(resolvedVariables(fn).API_URL, fn.sliceName).toBeUndefined();
  });

  it('takes API_URL from the apiUrl context value (a custom domain), refusing what is no https URL', () => {
    const custom = synthesize({ apiUrl: 'https://api.example.com/routes/' });
    const fn = custom.api.endpointFunctions.get('routes/waypoints') as ServiceFunction;
    expect(resolvedVariables(fn).API_URL).toBe('https://api.example.com/routes/');
    for (const apiUrl of ['http://api.example.com/', 'https://user:pw@api.example.com/', 'api.example.com']) {
      const app = testApp();
      app.node.setContext('apiUrl', apiUrl);
      expect(() => readConfig(app), apiUrl).toThrow(/context apiUrl must be an https URL/);
    }
  });

  it('answers an account without a registered usage key with 403 and 1009', () => {
    const responses = parent.ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties ?? {});
    expect(responses.find((r) => r.ResponseType === 'INVALID_API_KEY')).toMatchObject({ StatusCode: '403' });
    expect(JSON.parse(gatewayResponseBody('INVALID_API_KEY')).data.code).toBe(1009);
    expect(JSON.parse(gatewayResponseBody('THROTTLED')).data.code).toBe(1008);
  });
});

describe('two deployments in one account and Region', () => {
  /** The REST API's name and the ApiName every API alarm and dashboard metric of a deployment names. */
  function namesOf(stackPrefix: string) {
    const { apiTemplate: template } = synthesize({ stackPrefix });
    const [restApi] = Object.values(template.findResources('AWS::ApiGateway::RestApi'));
    const metricNames = new Set<unknown>();
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') {
        const { Name, Value } = value as { Name?: unknown; Value?: unknown };
        if (Name === 'ApiName') metricNames.add(JSON.stringify(Value));
        Object.values(value).forEach(visit);
      }
    };
    visit(template.findResources('AWS::CloudWatch::Alarm'));
    // The dashboard's body is a JSON string: its metrics name the API as ["AWS/ApiGateway", metric, "ApiName", name, ...].
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    return { restApiName: restApi?.Properties?.Name as unknown, metricNames, body };
  }

  it('name their APIs apart, and each one’s alarms and dashboard graph its own API', () => {
    const blue = namesOf('Blue');
    const green = namesOf('Green');
    expect(blue.restApiName).toBe('Blue-Api');
    expect(green.restApiName).toBe('Green-Api');
    expect([...blue.metricNames]).toEqual([JSON.stringify('Blue-Api')]);
    expect([...green.metricNames]).toEqual([JSON.stringify('Green-Api')]);
    expect(blue.body).toContain('Blue-Api');
    expect(blue.body).not.toContain('Green-Api');
  });
});
