import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  EndpointType,
  type IAuthorizer,
  IdentitySource,
  LogGroupLogDestination,
  RequestAuthorizer,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ConsumerDefinition } from '../functions/consumers';
import { AUTHORIZERS, checkedByGateway } from '../functions/endpoints/authorizers';
import type { AuthKind, EndpointDefinition } from '../functions/endpoints/define';
import { EndpointGroup } from './constructs/endpoint-group';
import { QueueConsumers } from './constructs/queue-consumers';
import { ServiceFunction } from './constructs/service-function';
import { StatefulImports } from './constructs/stateful-imports';
import { GATEWAY_RESPONSES, type GatewayResponseType, gatewayResponseBody } from './gateway-responses';
import { functionId, pascalCase } from './naming';
import type { StatefulExports } from './stateful-stack';

export interface ApiStackProps extends StackProps {
  /** The stateful stack's table, bucket and queues, imported by their fixed export names. */
  readonly stateful: StatefulExports;
  readonly endpoints: readonly EndpointDefinition[];
  /** @default none */
  readonly consumers?: readonly ConsumerDefinition[];
  /** Stage-wide steady-state requests per second. */
  readonly throttlingRateLimit: number;
  /** Stage-wide burst (token bucket size). */
  readonly throttlingBurstLimit: number;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /** @default 'v1' */
  readonly stageName?: string;
}

/**
 * The stateless side: the REST API, its authorizers, one Lambda per handler module and one per queue
 * consumer. It holds no data, so it can be destroyed and redeployed at will; the table, bucket and queues
 * come in from the stateful stack.
 */
export class ApiStack extends Stack {
  readonly api: RestApi;
  /** The authorizer function of each auth kind the endpoints use. */
  readonly authorizerFunctions: ReadonlyMap<AuthKind, ServiceFunction>;
  /** The function of each handler module of the endpoint list. */
  readonly endpointFunctions: ReadonlyMap<string, ServiceFunction>;
  /** The function of each queue consumer, by the consumer's `id`. */
  readonly consumerFunctions: ReadonlyMap<string, ServiceFunction>;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const resources = new StatefulImports(this, 'Stateful', props.stateful);

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: logRetention });
    this.api = new RestApi(this, 'Api', {
      restApiName: 'delivery-routes',
      description: 'Delivery Route Service public and driver API',
      endpointTypes: [EndpointType.REGIONAL],
      // Execution logging would need the account-wide API Gateway CloudWatch role; access logs suffice.
      cloudWatchRole: false,
      deploy: true,
      deployOptions: {
        stageName: props.stageName ?? 'v1',
        throttlingRateLimit: props.throttlingRateLimit,
        throttlingBurstLimit: props.throttlingBurstLimit,
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: accessLogFormat(),
      },
    });

    for (const type of Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]) {
      const { statusCode } = GATEWAY_RESPONSES[type];
      this.api.addGatewayResponse(`${pascalCase(type.toLowerCase())}Response`, {
        type: ResponseType.of(type),
        statusCode: statusCode === undefined ? undefined : String(statusCode),
        responseHeaders: { 'Content-Type': "'application/json'" },
        templates: { 'application/json': gatewayResponseBody(type) },
      });
    }

    const authorizerFunctions = new Map<AuthKind, ServiceFunction>();
    const authorizers: Partial<Record<AuthKind, IAuthorizer>> = {};
    for (const kind of gatewayAuthKinds(props.endpoints)) {
      const definition = AUTHORIZERS[kind];
      if (!definition) throw new Error(`AUTHORIZERS has no entry for auth '${kind}'`);
      const fn = new ServiceFunction(this, functionId(definition.handler), {
        handlerModule: definition.handler,
        description: `${definition.handler}: Lambda authorizer for auth '${kind}'`,
        logRetention,
      });
      // Authorizers look credentials up (API key hashes); they never write.
      fn.bindAccess({ table: 'read' }, resources);
      authorizerFunctions.set(kind, fn);
      authorizers[kind] = new RequestAuthorizer(this, `${pascalCase(kind)}Authorizer`, {
        handler: fn,
        identitySources: [IdentitySource.header('Authorization')],
        resultsCacheTtl: Duration.seconds(definition.cacheTtlSeconds),
      });
    }
    this.authorizerFunctions = authorizerFunctions;

    const endpoints = new EndpointGroup(this, 'Endpoints', {
      api: this.api,
      endpoints: props.endpoints,
      authorizers,
      resources,
      logRetention,
    });
    this.endpointFunctions = endpoints.functions;

    const consumers = new QueueConsumers(this, 'Consumers', {
      consumers: props.consumers ?? [],
      resources,
      logRetention,
    });
    this.consumerFunctions = consumers.functions;

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API stage' });

    this.acknowledgeNagFindings();
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
          'No WAF web ACL yet: stage throttling limits abuse and every method but /openapi.json needs a valid API key or driver token. Revisit before public launch.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'Execution logging needs the account-wide API Gateway CloudWatch role (cloudWatchRole: false on purpose); JSON access logs and X-Ray tracing are on.',
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
