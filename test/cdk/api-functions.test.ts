import { describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/api/index';
import { RESERVED_IDS_CONSTANT, reservedIdsOf } from '../../functions/models/path-ids';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/service-identity';
import { consumers } from '../../functions/workers/index';
import { RESPONSE_SCHEMAS_CONSTANT, XRAY_SDK_CONSTANT } from '../../lib/bundling';
import {
  alarmTopicArn,
  allFunctions,
  allOfType,
  apiId,
  authorizerFunctionOf,
  bundleDefineOf,
  environmentOf,
  functionArn,
  functionOf,
  handlers,
  methodRefs,
  resolvedFromParent,
  usedAuthKinds,
} from './api-template';
import { type CfnResource, synthesize } from './synth';

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

  /** Every function is built with the ids the endpoint list's fixed path segments reserve (models/path-ids.ts). */
  const reservedIdsJson = JSON.stringify(
    JSON.stringify(reservedIdsOf(endpoints.map((endpoint) => endpoint.path))),
  );

  /**
   * Active tracing everywhere (Lambda records each initialisation and invocation), the X-Ray SDK in no function by
   * default: it was the largest part of a queue consumer's cold start, and 20-35 ms of an API function's.
   */
  it('bundles the X-Ray SDK into no function (xraySdkTracing defaults to none)', () => {
    for (const { fn } of allFunctions) {
      expect(bundleDefineOf(fn), fn.sliceName).toEqual({
        [XRAY_SDK_CONSTANT]: 'false',
        [RESERVED_IDS_CONSTANT]: reservedIdsJson,
        [RESPONSE_SCHEMAS_CONSTANT]: String(fn.sliceName === 'docs/openapi'),
      });
    }
  });

  it.each(['consumers', 'all'] as const)(
    'with xraySdkTracing=%s, bundles it into the queue consumers, or every function',
    (setting) => {
      const { api: other } = synthesize({ xraySdkTracing: setting });
      const consumerFunctions = new Set(other.consumerFunctions.values());
      expect(consumerFunctions.size).toBe(consumers.length);
      const functions = [
        ...other.endpointFunctions.values(),
        ...other.authorizerFunctions.values(),
        ...consumerFunctions,
      ];
      for (const fn of functions)
        expect(bundleDefineOf(fn), fn.sliceName).toEqual({
          [XRAY_SDK_CONSTANT]: String(setting === 'all' || consumerFunctions.has(fn)),
          [RESERVED_IDS_CONSTANT]: reservedIdsJson,
          [RESPONSE_SCHEMAS_CONSTANT]: String(fn.sliceName === 'docs/openapi'),
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
