import { CfnOutput, Duration, RemovalPolicy, Size, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  Deployment,
  EndpointType,
  type GatewayResponse,
  type IAuthorizer,
  IdentitySource,
  LogGroupLogDestination,
  type MethodDeploymentOptions,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  Stage,
  type ThrottleSettings,
  type ThrottlingPerMethod,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { Alarm, Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct, IDependable } from 'constructs';
import { AUTHORIZERS, checkedByGateway } from '../functions/api/authorizers';
import type { AuthKind, EndpointDefinition, MethodThrottling } from '../functions/api/define';
import type { ConsumerDefinition } from '../functions/workers/define';
import { exportAnalytics } from '../functions/workers/export-analytics/consumer';
import { importRoutes } from '../functions/workers/import-routes/consumer';
import { bundlesXraySdk, XRAY_SDK_TRACING_DEFAULT, type XraySdkTracing } from './bundling';
import { apiKeyRequired, EndpointGroup, groupBy } from './constructs/endpoint-group';
import { QueueConsumers } from './constructs/queue-consumers';
import { ServiceDashboard } from './constructs/service-dashboard';
import { ServiceFunction } from './constructs/service-function';
import { StatefulImports } from './constructs/stateful-imports';
import {
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseBody,
  gatewayResponseHeaders,
  throttledRetryAfterSeconds,
} from './gateway-responses';
import { functionId, pascalCase } from './naming';
import { sliceOf } from './slices';
import type { StatefulExports } from './stateful-stack';
import { API_ALARMS, alarmOn, WATCHES } from './watches';

export interface ApiStackProps extends StackProps {
  /** The stateful stack's table, bucket, queues and alarm topic, imported by their fixed export names. */
  readonly stateful: StatefulExports;
  readonly endpoints: readonly EndpointDefinition[];
  /** @default none */
  readonly consumers?: readonly ConsumerDefinition[];
  /** Stage-wide steady-state requests per second. */
  readonly throttlingRateLimit: number;
  /** Stage-wide burst (token bucket size). */
  readonly throttlingBurstLimit: number;
  /**
   * Each account's throttle on the methods that take an account key: the usage plan every account's usage key
   * joins (the API key authorizer names the key, so the limit follows the account, whichever of its keys it
   * uses).
   */
  readonly accountThrottling: Required<ThrottleSettings>;
  /** Webhooks an account may have at once (the webhook create function's MAX_WEBHOOKS_PER_ACCOUNT). */
  readonly maxWebhooksPerAccount?: number;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /** Which functions bundle the X-Ray SDK (lib/bundling.ts). @default XRAY_SDK_TRACING_DEFAULT */
  readonly xraySdkTracing?: XraySdkTracing;
  /** @default 'v1' */
  readonly stageName?: string;
  /**
   * The API's base URL as clients reach it, which links to the API start with (tracking pages): a custom
   * domain's URL, when one serves the stage.
   * @default the stage's own URL, `https://<api id>.execute-api.<region>.<suffix>/<stage>/`
   */
  readonly apiUrl?: string;
  /**
   * Sets the account's API Gateway CloudWatch role (retained when the stack goes: other APIs of the account
   * may log through it). Without one, a stage with access logging cannot be created.
   * @default true
   */
  readonly apiGatewayAccountRole?: boolean;
}

/**
 * The stage's ceiling on a method with a per-account limit (an endpoint's `throttling`): that many accounts at
 * their full rate on it at once, never above the stage's own limits. The per-account limit is what holds one
 * account back; the ceiling only guards the service against a surge of many (docs/architecture.md, Throttling).
 */
export const METHOD_CEILING_ACCOUNTS = 5;

const DEFAULT_STAGE_NAME = 'v1';

/**
 * The stateless side: the REST API with its paths, authorizers, deployment and stage, one nested stack of
 * endpoint functions and methods per domain (the endpoints' `tag`), and one of queue consumers. It holds no
 * data, so it can be destroyed and redeployed at will; the table, bucket, queues and alarm topic come in
 * from the stateful stack.
 */
export class ApiStack extends Stack {
  readonly api: RestApi;
  readonly stage: Stage;
  /** The stage's access log group: one JSON line per request (accessLogFormat). */
  readonly accessLogs: LogGroup;
  /**
   * The accounts' usage plan: its throttle holds per account (per usage key). The admin CLI registers each
   * account's key in it by the id the stack outputs (UsagePlanId).
   */
  readonly usagePlan: UsagePlan;
  /** The authorizer function of each auth kind the endpoints use. */
  readonly authorizerFunctions: ReadonlyMap<AuthKind, ServiceFunction>;
  /** The nested stack of each domain, by tag. */
  readonly endpointGroups: ReadonlyMap<string, EndpointGroup>;
  /** The function of each slice of the endpoint list, by its name (`routes/start`). */
  readonly endpointFunctions: ReadonlyMap<string, ServiceFunction>;
  readonly consumers: QueueConsumers;
  /** The function of each queue consumer, by the consumer's `id`. */
  readonly consumerFunctions: ReadonlyMap<string, ServiceFunction>;
  readonly serverErrorAlarm: Alarm;
  readonly latencyAlarm: Alarm;
  /** The operators' dashboard: every alarm's metric and what explains it (lib/constructs/service-dashboard.ts). */
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const xraySdkTracing = props.xraySdkTracing ?? XRAY_SDK_TRACING_DEFAULT;
    const resources = new StatefulImports(this, 'Stateful', props.stateful);

    this.api = new RestApi(this, 'Api', {
      // The stack's name, unique per account and Region: API Gateway's metrics (ApiName), and so the alarms
      // and dashboard, tell apart two copies deployed under two stack prefixes.
      restApiName: this.stackName,
      description: 'Delivery Route Service public and driver API',
      endpointTypes: [EndpointType.REGIONAL],
      // Answers over 1 KB are gzipped for clients that accept it (route lists, the docs page's 1.7 MB script).
      minCompressionSize: Size.kibibytes(1),
      // The stage's access logs need the account's API Gateway CloudWatch role; a first deploy in an account
      // or Region that never used API Gateway has none. The stage waits for it (CDK adds the dependency).
      ...(props.apiGatewayAccountRole === false
        ? { cloudWatchRole: false }
        : { cloudWatchRole: true, cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN }),
      // The methods live in nested stacks; the deployment below waits for them (see deploy()).
      deploy: false,
      // The API key authorizer returns the account's usage key (usageIdentifierKey): clients send only their
      // own bearer key, and API Gateway throttles each account by its usage plan.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
    });

    const gatewayResponses: GatewayResponse[] = [];
    const retryAfterSeconds = stageRetryAfterSeconds(props);
    for (const type of Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]) {
      const { statusCode } = GATEWAY_RESPONSES[type];
      const response = this.api.addGatewayResponse(`${pascalCase(type.toLowerCase())}Response`, {
        type: ResponseType.of(type),
        statusCode: statusCode === undefined ? undefined : String(statusCode),
        responseHeaders: gatewayResponseHeaders(type, retryAfterSeconds),
        templates: { 'application/json': gatewayResponseBody(type) },
      });
      gatewayResponses.push(response);
    }

    const authorizerFunctions = new Map<AuthKind, ServiceFunction>();
    const authorizers: Partial<Record<AuthKind, IAuthorizer>> = {};
    for (const kind of gatewayAuthKinds(props.endpoints)) {
      const definition = AUTHORIZERS[kind];
      if (!definition) throw new Error(`AUTHORIZERS has no entry for auth '${kind}'`);
      const slice = sliceOf(definition.module);
      const fn = new ServiceFunction(this, functionId(slice.name), {
        slice,
        description: `${slice.name}: Lambda authorizer for auth '${kind}'`,
        logRetention,
        xraySdk: bundlesXraySdk(xraySdkTracing, 'api'),
      });
      // Authorizers look credentials up (API key hashes); they never write.
      fn.bindAccess({ table: 'read' }, resources);
      fn.alarmOnThrottles(resources.alarmTopic);
      authorizerFunctions.set(kind, fn);
      authorizers[kind] = new RequestAuthorizer(this, `${pascalCase(kind)}Authorizer`, {
        handler: fn,
        identitySources: [IdentitySource.header('Authorization')],
        resultsCacheTtl: Duration.seconds(definition.cacheTtlSeconds),
      });
    }
    this.authorizerFunctions = authorizerFunctions;

    // The stage's URL as `this.api.url` spells it, but from the stage's name rather than the stage itself,
    // which is made after the methods (deploy()): the functions that need it come before.
    const apiUrl =
      props.apiUrl ??
      `https://${this.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${props.stageName ?? DEFAULT_STAGE_NAME}/`;
    const groups = new Map<string, EndpointGroup>();
    for (const [tag, endpoints] of groupBy(props.endpoints, (endpoint) => endpoint.tag)) {
      groups.set(
        tag,
        new EndpointGroup(this, `${pascalCase(tag)}Endpoints`, {
          api: this.api,
          endpoints,
          authorizers,
          stateful: props.stateful,
          apiUrl,
          logRetention,
          xraySdk: bundlesXraySdk(xraySdkTracing, 'api'),
        }),
      );
    }
    this.endpointGroups = groups;
    this.endpointFunctions = new Map([...groups.values()].flatMap((group) => [...group.functions]));

    this.consumers = new QueueConsumers(this, 'Consumers', {
      consumers: props.consumers ?? [],
      stateful: props.stateful,
      apiUrl,
      logRetention,
      xraySdk: bundlesXraySdk(xraySdkTracing, 'consumer'),
    });
    this.consumerFunctions = this.consumers.functions;

    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: logRetention });
    this.stage = this.deploy(props, [...groups.values(), ...gatewayResponses], this.accessLogs);
    this.usagePlan = this.api.addUsagePlan('AccountUsagePlan', {
      name: `${this.stackName}-accounts`,
      description: 'Per-account throttle of the account-key methods: every account’s usage key joins it',
      throttle: props.accountThrottling,
      apiStages: [
        { api: this.api, stage: this.stage, throttle: accountMethodThrottling(props.endpoints, groups) },
      ],
    });
    const createWebhook = this.endpointFunctions.get('webhooks/create');
    if (createWebhook && props.maxWebhooksPerAccount !== undefined)
      createWebhook.addEnvironment('MAX_WEBHOOKS_PER_ACCOUNT', String(props.maxWebhooksPerAccount));

    this.serverErrorAlarm = alarmOn(this, 'ServerErrorRateAlarm', WATCHES.apiServerErrorRate, this.stage, {
      description: `More than ${API_ALARMS.serverErrorRatePercent}% of API requests answered 5xx`,
      topic: resources.alarmTopic,
    });
    this.latencyAlarm = alarmOn(this, 'LatencyP99Alarm', WATCHES.apiLatency, this.stage, {
      description: `API p99 latency above ${API_ALARMS.p99LatencyMs} ms`,
      topic: resources.alarmTopic,
    });

    // Here, with what it graphs: the stage and the functions are this stack's (nested stacks' outputs reach
    // the parent without exports), the queues come in by the stateful stack's fixed exports. The stateful stack
    // could not hold it: it must not depend on this one.
    const byName = (functions: Iterable<ServiceFunction>) =>
      new Map([...functions].map((fn) => [fn.sliceName, fn] as const));
    this.dashboard = new ServiceDashboard(this, 'Monitoring', {
      dashboardName: this.stackName,
      stage: this.stage,
      accessLogs: this.accessLogs,
      endpoints: props.endpoints,
      functions: new Map([
        ...[...groups].map(([tag, group]) => [`${tag} endpoints`, byName(group.functions.values())] as const),
        ['Authorizers', byName(authorizerFunctions.values())],
        ['Queue consumers', byName(this.consumerFunctions.values())],
      ]),
      workers: {
        imports: this.consumerFunctions.get(importRoutes.id),
        exports: this.consumerFunctions.get(exportAnalytics.id),
      },
      resources,
    }).dashboard;

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API stage' });
    new CfnOutput(this, 'DashboardName', {
      value: this.dashboard.dashboardName,
      description: 'The CloudWatch dashboard of the service (docs/operations.md)',
    });
    new CfnOutput(this, 'UsagePlanId', {
      value: this.usagePlan.usagePlanId,
      description:
        'The accounts’ usage plan: npm run --silent admin -- ... --usage-plan <id> registers accounts in it',
    });

    this.acknowledgeNagFindings();
  }

  /**
   * The deployment and its stage. The deployment is made after every nested stack's methods and every gateway
   * response exist (a deployment snapshots the API as it is when it is created), and gets a new logical id (a
   * new deployment) whenever the endpoint list, the authorizers or the gateway responses change (CDK adds the
   * REST API's own properties, such as compression); function code changes need none (methods point at the
   * functions, not at their code).
   */
  private deploy(props: ApiStackProps, snapshotOf: readonly IDependable[], accessLogs: LogGroup): Stage {
    const deployment = new Deployment(this, 'Deployment', {
      api: this.api,
      description: 'Delivery Route Service API',
    });
    deployment.addToLogicalId(deploymentFingerprint(props.endpoints, stageRetryAfterSeconds(props)));
    for (const part of snapshotOf) deployment.node.addDependency(part);

    const stage = new Stage(this, 'Stage', {
      deployment,
      stageName: props.stageName ?? DEFAULT_STAGE_NAME,
      throttlingRateLimit: props.throttlingRateLimit,
      throttlingBurstLimit: props.throttlingBurstLimit,
      methodOptions: methodThrottles(props.endpoints, props),
      tracingEnabled: true,
      accessLogDestination: new LogGroupLogDestination(accessLogs),
      accessLogFormat: accessLogFormat(),
    });
    this.api.deploymentStage = stage;
    return stage;
  }

  /**
   * cdk-nag AwsSolutions findings this stack accepts, each with the reason it is accepted. Findings on the
   * imported table and bucket are acknowledged where they are imported (StatefulImports).
   */
  private acknowledgeNagFindings(): void {
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Every handler validates path, query and body with the endpoint zod schemas and answers the spec error envelope; API Gateway request validators would answer a different body.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'No WAF web ACL yet: stage throttling limits abuse and every method but /openapi.json, the /docs page and the tracking pages and their unsubscribe links (whose 128-bit token is the credential) needs a valid API key or driver token. Revisit before public launch.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'JSON access logs and X-Ray tracing are on; execution logs (per-request detail, including bodies at INFO) would add cost and risk logging payloads.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "API Gateway's account-level CloudWatch role uses the AWS managed AmazonAPIGatewayPushToCloudWatchLogs policy, as AWS documents for it; no function role carries a managed policy.",
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Callers are API clients with API keys and driver apps with login tokens, not Cognito users; a Lambda REQUEST authorizer checks them.',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'Functions are pinned to nodejs22.x (bundles target node22); runtime upgrades are made deliberately, not by a CDK library bump.',
      },
    );
  }
}

/**
 * Each account's limit on the methods with `throttling`: per-method throttles of the accounts' usage plan,
 * so that they hold per usage key, that is per account. Only a method that requires the usage key has one;
 * a public method's is the stage's (methodThrottles).
 */
function accountMethodThrottling(
  endpoints: readonly EndpointDefinition[],
  groups: ReadonlyMap<string, EndpointGroup>,
): ThrottlingPerMethod[] {
  return endpoints.flatMap((endpoint) => {
    if (!endpoint.throttling || endpoint.auth === 'none') return [];
    if (!apiKeyRequired(endpoint))
      throw new Error(
        `${endpoint.operationId} has throttling but auth '${endpoint.auth}': a per-account limit needs the account's usage key (auth 'apiKey')`,
      );
    const method = groups.get(endpoint.tag)?.methods.get(endpoint.operationId);
    if (!method) throw new Error(`no method for ${endpoint.operationId}`);
    const { rateLimit, burstLimit } = endpoint.throttling;
    return [{ method, throttle: { rateLimit, burstLimit } }];
  });
}

/**
 * The stage's own limit on each method with `throttling` (`/path/METHOD` keys), at most the stage's limits:
 * on a method with a per-account limit, a ceiling of METHOD_CEILING_ACCOUNTS accounts at their full rate; on
 * a public method, which no authorizer ties to an account, the method's limit itself, for all its callers.
 */
function methodThrottles(
  endpoints: readonly EndpointDefinition[],
  stage: Pick<ApiStackProps, 'throttlingRateLimit' | 'throttlingBurstLimit'>,
): Record<string, MethodDeploymentOptions> {
  return Object.fromEntries(
    endpoints.flatMap((endpoint) => {
      if (!endpoint.throttling) return [];
      const { rateLimit, burstLimit } = stageMethodLimit(endpoint, stage);
      const key = `${endpoint.path}/${endpoint.method}`;
      return [[key, { throttlingRateLimit: rateLimit, throttlingBurstLimit: burstLimit }]];
    }),
  );
}

/**
 * What the stage lets through a method for all callers together: the stage's limits; for a method with a
 * per-account limit (`throttling`) METHOD_CEILING_ACCOUNTS accounts at their full rate; for a public method
 * with `throttling`, which no authorizer ties to an account, that limit itself. Never above the stage's own.
 */
export function stageMethodLimit(
  endpoint: Pick<EndpointDefinition, 'auth' | 'throttling'>,
  stage: Pick<ApiStackProps, 'throttlingRateLimit' | 'throttlingBurstLimit'>,
): MethodThrottling {
  const { throttling } = endpoint;
  const { throttlingRateLimit: rateLimit, throttlingBurstLimit: burstLimit } = stage;
  if (!throttling) return { rateLimit, burstLimit };
  const callers = endpoint.auth === 'none' ? 1 : METHOD_CEILING_ACCOUNTS;
  return {
    rateLimit: Math.min(throttling.rateLimit * callers, rateLimit),
    burstLimit: Math.min(throttling.burstLimit * callers, burstLimit),
  };
}

/** The Retry-After of the stage's throttling answers: for the slowest of its rates (lib/gateway-responses.ts). */
function stageRetryAfterSeconds(
  props: Pick<ApiStackProps, 'endpoints' | 'throttlingRateLimit' | 'accountThrottling'>,
): number {
  return throttledRetryAfterSeconds([
    props.throttlingRateLimit,
    props.accountThrottling.rateLimit,
    ...props.endpoints.flatMap((endpoint) => (endpoint.throttling ? [endpoint.throttling.rateLimit] : [])),
  ]);
}

/** What a deployment of the API is made of, as plain data: when it changes, API Gateway needs a new one. */
function deploymentFingerprint(endpoints: readonly EndpointDefinition[], retryAfterSeconds: number): unknown {
  return {
    methods: endpoints.map((endpoint) => [
      endpoint.method,
      endpoint.path,
      endpoint.auth,
      endpoint.operationId,
      sliceOf(endpoint.module).name,
      apiKeyRequired(endpoint),
    ]),
    // By slice name, never the definition's module URL, which holds the checkout's absolute path.
    authorizers: Object.fromEntries(
      Object.entries(AUTHORIZERS).map(([kind, { module, cacheTtlSeconds }]) => [
        kind,
        { handler: sliceOf(module).name, cacheTtlSeconds },
      ]),
    ),
    gatewayResponses: Object.keys(GATEWAY_RESPONSES).map((type) => [
      type,
      GATEWAY_RESPONSES[type as GatewayResponseType],
      gatewayResponseBody(type as GatewayResponseType),
      gatewayResponseHeaders(type as GatewayResponseType, retryAfterSeconds),
    ]),
  };
}

/** The auth kinds the endpoints use that the gateway checks with an authorizer (driver tokens are not). */
function gatewayAuthKinds(endpoints: readonly EndpointDefinition[]): AuthKind[] {
  return [...new Set(endpoints.map((endpoint) => endpoint.auth))].filter(checkedByGateway);
}

function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      extendedRequestId: AccessLogField.contextExtendedRequestId(),
      requestTime: AccessLogField.contextRequestTime(),
      ip: AccessLogField.contextIdentitySourceIp(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
      httpMethod: AccessLogField.contextHttpMethod(),
      resourcePath: AccessLogField.contextResourcePath(),
      path: AccessLogField.contextPath(),
      protocol: AccessLogField.contextProtocol(),
      status: AccessLogField.contextStatus(),
      responseLength: AccessLogField.contextResponseLength(),
      responseLatency: AccessLogField.contextResponseLatency(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      integrationStatus: AccessLogField.contextIntegrationStatus(),
      errorType: AccessLogField.contextErrorResponseType(),
      errorMessage: AccessLogField.contextErrorMessage(),
      principalId: AccessLogField.contextAuthorizerPrincipalId(),
      authorizerStatus: AccessLogField.contextAuthorizerStatus(),
      authorizerLatency: AccessLogField.contextAuthorizerLatency(),
      authorizerError: AccessLogField.contextAuthorizerError(),
      xrayTraceId: AccessLogField.contextXrayTraceId(),
    }),
  );
}
