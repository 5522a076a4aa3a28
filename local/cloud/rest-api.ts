import { isPlainObject } from './intrinsics';
import type {
  ApiAuthorizerSpec,
  ApiMethodSpec,
  ApiStageSpec,
  GatewayResponseSpec,
  RestApiSpec,
  UsagePlanMethodThrottle,
  UsagePlanSpec,
} from './model';
import { functionNameOf, type ResourceProperties, readEach } from './properties';
import type { CloudTemplates } from './templates';

/** API Gateway's default authorizer cache TTL when AuthorizerResultTtlInSeconds is absent. */
const DEFAULT_AUTHORIZER_TTL_SECONDS = 300;

/** A Lambda function ARN inside an integration or authorizer URI. */
const LAMBDA_INVOCATION_URI = /:lambda:path\/2015-03-31\/functions\/(.+)\/invocations$/;

/** A member of some REST API: every API Gateway sub-resource names its API by RestApiId. */
interface ApiMember {
  restApiId: string;
  properties: ResourceProperties;
}

/**
 * Every REST API with its methods (paths from the Resource tree), authorizers, gateway responses and
 * stages. Members of an API may sit in any template (CDK puts methods in nested stacks, which get the
 * API's and the resources' ids as parameters): they are matched by the resolved ids.
 */
export function readRestApis(templates: CloudTemplates): RestApiSpec[] {
  const membersOf = (type: string) =>
    readEach(
      templates,
      type,
      (properties): ApiMember => ({ restApiId: properties.requiredString('RestApiId'), properties }),
    );
  const resources = membersOf('AWS::ApiGateway::Resource');
  const methods = membersOf('AWS::ApiGateway::Method');
  const authorizers = membersOf('AWS::ApiGateway::Authorizer');
  const responses = membersOf('AWS::ApiGateway::GatewayResponse');
  const stages = membersOf('AWS::ApiGateway::Stage');
  const deployments = membersOf('AWS::ApiGateway::Deployment');
  const plans = readUsagePlans(templates);

  return readEach(templates, 'AWS::ApiGateway::RestApi', (api): RestApiSpec => {
    const { stack } = api.declared;
    const id = api.physicalId;
    const ofThisApi = (members: ApiMember[]) =>
      members.filter((member) => member.restApiId === id).map((m) => m.properties);
    const rootId = String(templates.getAtt(stack, api.logicalId, 'RootResourceId'));
    const pathOf = resourcePaths(rootId, ofThisApi(resources));
    const apiAuthorizers = ofThisApi(authorizers).map(
      (authorizer) => [authorizer.physicalId, readAuthorizer(authorizer)] as const,
    );
    const authorizerById = new Map(apiAuthorizers);
    const apiMethods = ofThisApi(methods).map((method) => readMethod(method, pathOf, authorizerById));
    return {
      logicalId: api.logicalId,
      stackPath: api.stackPath,
      id,
      name: api.string('Name') ?? api.logicalId,
      minimumCompressionSize: api.number('MinimumCompressionSize'),
      apiKeySource: api.string('ApiKeySourceType'),
      methods: apiMethods,
      authorizers: apiAuthorizers.map(([, authorizer]) => authorizer),
      gatewayResponses: ofThisApi(responses).map(readGatewayResponse),
      stages: [
        ...ofThisApi(stages).map((stage) => readStage(stage, '')),
        ...ofThisApi(deployments)
          .filter((d) => d.value('StageName') !== undefined)
          .map((d) => readStage(d, 'StageDescription.')),
      ],
      usagePlans: plans.flatMap(({ apiStages, ...plan }) => {
        const mine = apiStages.filter((stage) => stage.apiId === id);
        if (!mine.length) return [];
        const methodThrottles = mine.flatMap(({ stage, methodThrottles }) =>
          methodThrottles.map((throttle) => ({ stage, ...throttle })),
        );
        // API Gateway keeps a throttle for a method the API does not have and applies it to nothing: refused
        // here, so that a mistyped path cannot pass for a limit.
        for (const { path, httpMethod } of methodThrottles) {
          if (!apiMethods.some((method) => method.path === path && method.httpMethod === httpMethod))
            throw new Error(
              `usage plan ${plan.logicalId} (${plan.stackPath}): ApiStages Throttle '${path}/${httpMethod}' names no method of REST API ${api.logicalId}`,
            );
        }
        return [{ ...plan, stages: mine.map((stage) => stage.stage), methodThrottles }];
      }),
    };
  });
}

/** A usage plan's API stage as the template gives it, its per-method throttles not yet matched to methods. */
interface PlanApiStage {
  apiId: string;
  stage: string;
  methodThrottles: Omit<UsagePlanMethodThrottle, 'stage'>[];
}

/**
 * Every usage plan with its API stages (and their per-method throttles) and the template's keys in it. A
 * quota fails the read: the local API Gateway does not enforce quotas, and would let through what AWS refuses.
 */
function readUsagePlans(
  templates: CloudTemplates,
): (Omit<UsagePlanSpec, 'stages' | 'methodThrottles'> & { apiStages: PlanApiStage[] })[] {
  const keys = new Map(
    readEach(templates, 'AWS::ApiGateway::ApiKey', (key) => {
      if (key.list('StageKeys').length)
        throw key.fail('StageKeys', 'stage keys (not usage plans) are not supported by the local runtime');
      const value = key.string('Value');
      if (value === undefined)
        throw key.fail('Value', 'is required locally (the local runtime does not generate key values)');
      return [
        key.physicalId,
        { id: key.physicalId, value, enabled: key.boolean('Enabled') ?? false },
      ] as const;
    }),
  );
  const planKeys = readEach(templates, 'AWS::ApiGateway::UsagePlanKey', (planKey) => {
    if (planKey.requiredString('KeyType') !== 'API_KEY') throw planKey.fail('KeyType', 'must be API_KEY');
    const key = keys.get(planKey.requiredString('KeyId'));
    if (!key) throw planKey.fail('KeyId', 'is not an AWS::ApiGateway::ApiKey of the templates');
    return { usagePlanId: planKey.requiredString('UsagePlanId'), key };
  });
  return readEach(templates, 'AWS::ApiGateway::UsagePlan', (plan) => {
    if (plan.value('Quota') !== undefined)
      throw plan.fail('Quota', 'usage plan quotas are not enforced by the local runtime');
    const apiStages = plan.list('ApiStages').map((_, index): PlanApiStage => {
      const at = `ApiStages.${index}`;
      // Keyed `/<resource path>/<HTTP method>` (`/dcs/{dc_id}/invoiced-routes/POST`; the root's `//GET`), as
      // CDK's UsagePlan writes it (ThrottlingPerMethod, `${resource.path}/${httpMethod}`). Read as a whole: a
      // key may hold dots, which property paths split on.
      const throttles = Object.entries(plan.object(`${at}.Throttle`) ?? {});
      const methodThrottles = throttles.map(([key, limits]) => {
        const split = key.lastIndexOf('/');
        const path = key.slice(0, split) || '/';
        const httpMethod = key.slice(split + 1);
        if (!path.startsWith('/') || !/^[A-Z]+$/.test(httpMethod))
          throw plan.fail(`${at}.Throttle`, `key '${key}' is not /<resource path>/<HTTP method>`);
        const limit = (name: string) => {
          const value = isPlainObject(limits) ? limits[name] : undefined;
          const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
          if (typeof number === 'number' && Number.isFinite(number)) return number;
          throw plan.fail(
            `${at}.Throttle`,
            `'${key}' needs a numeric ${name} (the local runtime needs both RateLimit and BurstLimit)`,
          );
        };
        return { path, httpMethod, rateLimit: limit('RateLimit'), burstLimit: limit('BurstLimit') };
      });
      return {
        apiId: plan.requiredString(`${at}.ApiId`),
        stage: plan.requiredString(`${at}.Stage`),
        methodThrottles,
      };
    });
    const throttle = plan.object('Throttle');
    if (throttle && (throttle.RateLimit === undefined) !== (throttle.BurstLimit === undefined))
      throw plan.fail('Throttle', 'give both RateLimit and BurstLimit (the local runtime needs both)');
    return {
      logicalId: plan.logicalId,
      stackPath: plan.stackPath,
      id: plan.physicalId,
      name: plan.string('UsagePlanName'),
      ...(throttle
        ? {
            throttle: {
              rateLimit: plan.number('Throttle.RateLimit'),
              burstLimit: plan.number('Throttle.BurstLimit'),
            },
          }
        : {}),
      apiStages,
      keys: planKeys.filter((planKey) => planKey.usagePlanId === plan.physicalId).map(({ key }) => key),
    };
  });
}

/** The path of each resource id, from PathPart and ParentId up to the API's root resource (`/`). */
function resourcePaths(rootId: string, resources: ResourceProperties[]) {
  const byId = new Map(resources.map((resource) => [resource.physicalId, resource]));
  const paths = new Map<string, string>([[rootId, '/']]);
  const pathOf = (resourceId: string, seen: string[] = []): string => {
    const known = paths.get(resourceId);
    if (known) return known;
    const resource = byId.get(resourceId);
    if (!resource) throw new Error(`no API Gateway resource has the id ${resourceId}`);
    if (seen.includes(resourceId)) throw resource.fail('ParentId', 'the resource is its own ancestor');
    const parentPath = pathOf(resource.requiredString('ParentId'), [...seen, resourceId]);
    const path = `${parentPath === '/' ? '' : parentPath}/${resource.requiredString('PathPart')}`;
    paths.set(resourceId, path);
    return path;
  };
  return pathOf;
}

function readMethod(
  method: ResourceProperties,
  pathOf: (resourceId: string) => string,
  authorizerById: Map<string, ApiAuthorizerSpec>,
): ApiMethodSpec {
  const integration = method.object('Integration') ?? method.missing('Integration');
  const type = integration.Type;
  if (typeof type !== 'string') throw method.fail('Integration.Type', 'is required');
  const uri = integration.Uri;
  const authorizerId = method.string('AuthorizerId');
  const authorizer = authorizerId === undefined ? undefined : authorizerById.get(authorizerId);
  if (authorizerId !== undefined && !authorizer) {
    throw method.fail('AuthorizerId', `${authorizerId} is not an authorizer of this API`);
  }
  let path: string;
  try {
    path = pathOf(method.requiredString('ResourceId'));
  } catch (error) {
    throw method.fail('ResourceId', (error as Error).message);
  }
  return {
    logicalId: method.logicalId,
    path,
    httpMethod: method.requiredString('HttpMethod'),
    authorizationType: method.string('AuthorizationType') ?? 'NONE',
    authorizerLogicalId: authorizer?.logicalId,
    apiKeyRequired: method.boolean('ApiKeyRequired') ?? false,
    operationName: method.string('OperationName'),
    integration: {
      type,
      functionName: typeof uri === 'string' ? lambdaFunctionOf(uri) : undefined,
    },
  };
}

function lambdaFunctionOf(uri: string): string | undefined {
  const functionArn = LAMBDA_INVOCATION_URI.exec(uri)?.[1];
  return functionArn === undefined ? undefined : functionNameOf(functionArn);
}

function readAuthorizer(authorizer: ResourceProperties): ApiAuthorizerSpec {
  const type = authorizer.requiredString('Type');
  if (type !== 'TOKEN' && type !== 'REQUEST') {
    // Failing beats letting requests through unchecked: the local runtime has no Cognito.
    throw authorizer.fail('Type', `${type} authorizers are not supported by the local runtime`);
  }
  const functionName = lambdaFunctionOf(authorizer.requiredString('AuthorizerUri'));
  if (!functionName) throw authorizer.fail('AuthorizerUri', 'is not a Lambda function invocation URI');
  return {
    logicalId: authorizer.logicalId,
    type,
    name: authorizer.string('Name'),
    functionName,
    identitySources: (authorizer.string('IdentitySource') ?? '')
      .split(',')
      .map((source) => source.trim())
      .filter(Boolean),
    resultTtlSeconds: authorizer.number('AuthorizerResultTtlInSeconds') ?? DEFAULT_AUTHORIZER_TTL_SECONDS,
  };
}

function readGatewayResponse(response: ResourceProperties): GatewayResponseSpec {
  const statusCode = response.number('StatusCode');
  return {
    logicalId: response.logicalId,
    responseType: response.requiredString('ResponseType'),
    ...(statusCode === undefined ? {} : { statusCode }),
    responseTemplates: stringMap(response, 'ResponseTemplates'),
    responseParameters: stringMap(response, 'ResponseParameters'),
  };
}

/**
 * A stage: an AWS::ApiGateway::Stage (`prefix` ''), or a Deployment's StageName with its StageDescription
 * (`prefix` 'StageDescription.'). Stage-wide throttling is the `/*` `*` method setting, where CDK puts it.
 */
function readStage(stage: ResourceProperties, prefix: string): ApiStageSpec {
  const methodSettings = stage.list(`${prefix}MethodSettings`).map((setting, index) => {
    const at = `${prefix}MethodSettings.${index}`;
    if (!isPlainObject(setting)) throw stage.fail(at, 'expected an object');
    return {
      resourcePath: stage.string(`${at}.ResourcePath`) ?? '/*',
      httpMethod: stage.string(`${at}.HttpMethod`) ?? '*',
      throttlingRateLimit: stage.number(`${at}.ThrottlingRateLimit`),
      throttlingBurstLimit: stage.number(`${at}.ThrottlingBurstLimit`),
    };
  });
  const stageWide = methodSettings.find((s) => s.resourcePath === '/*' && s.httpMethod === '*');
  return {
    stageName: stage.requiredString('StageName'),
    throttlingRateLimit: stage.number(`${prefix}ThrottlingRateLimit`) ?? stageWide?.throttlingRateLimit,
    throttlingBurstLimit: stage.number(`${prefix}ThrottlingBurstLimit`) ?? stageWide?.throttlingBurstLimit,
    methodSettings,
    tracingEnabled: stage.boolean(`${prefix}TracingEnabled`) ?? false,
  };
}

function stringMap(resource: ResourceProperties, path: string): Record<string, string> {
  const map = resource.object(path) ?? {};
  return Object.fromEntries(
    Object.entries(map).map(([key, value]) => {
      if (typeof value !== 'string') throw resource.fail(`${path}.${key}`, 'expected a string');
      return [key, value];
    }),
  );
}
