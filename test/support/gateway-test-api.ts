import { type FunctionSpec, LOCAL_ACCOUNT_ID, type RestApiSpec } from '../../local/cloud/model';
import { fixtureFunction } from './lambda-fixtures';

/** The REST API test/e2e/api-gateway.test.ts configures the local API Gateway with, and its functions. */

const ENTRY = 'test/fixtures/lambda/gateway.ts';

/** A fixture function of test/fixtures/lambda/gateway.ts: 512 MB, 10 s, its logical id and role its name. */
const fixture = (name: string, handler: string, overrides: Partial<FunctionSpec> = {}): FunctionSpec =>
  fixtureFunction(name, ENTRY, {
    logicalId: name,
    stackPath: 'GatewayTest',
    handler,
    memorySize: 512,
    timeoutSeconds: 10,
    roleArn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${name}`,
    ...overrides,
  });

/** The functions behind GATEWAY_TEST_API: the authorizer, the integration, and one that times out after 1 s. */
export const FUNCTIONS = [
  fixture('gw-authorizer', 'index.authorizer'),
  fixture('gw-integration', 'index.integration'),
  fixture('gw-slow', 'index.integration', { timeoutSeconds: 1 }),
];

/** The error body of the API's gateway responses. */
export const ENVELOPE = (code: number, message: string) =>
  JSON.stringify({ status: 'error', data: { code, message } });

/**
 * The REST API the tests serve, as a template declares one: public, authorized, slow and throttled methods,
 * a REQUEST authorizer cached for 60 s, the service's gateway responses, and gzip from 1,024 bytes.
 */
export const GATEWAY_TEST_API: RestApiSpec = {
  logicalId: 'Api',
  stackPath: 'GatewayTest',
  id: 'gwtest',
  name: 'gateway-test',
  minimumCompressionSize: 1024,
  methods: [
    method('GET', '/public/{action}', 'NONE'),
    method('GET', '/public/literal', 'NONE'),
    method('GET', '/echo/{value}', 'NONE'),
    method('POST', '/public/{action}', 'NONE'),
    method('GET', '/private/{action}', 'CUSTOM'),
    method('POST', '/private/{action}', 'CUSTOM'),
    method('GET', '/slow/{action}', 'NONE', 'gw-slow'),
    method('GET', '/throttled/{action}', 'NONE'),
  ],
  authorizers: [
    {
      logicalId: 'Authorizer',
      type: 'REQUEST',
      functionName: 'gw-authorizer',
      identitySources: ['method.request.header.Authorization'],
      resultTtlSeconds: 60,
    },
  ],
  gatewayResponses: [
    {
      logicalId: 'Unauthorized',
      responseType: 'UNAUTHORIZED',
      statusCode: 401,
      responseTemplates: { 'application/json': ENVELOPE(1001, 'unauthorized') },
      responseParameters: { 'gatewayresponse.header.Content-Type': "'application/json'" },
    },
    {
      logicalId: 'Missing',
      responseType: 'MISSING_AUTHENTICATION_TOKEN',
      statusCode: 404,
      responseTemplates: { 'application/json': ENVELOPE(1007, 'no such endpoint') },
      responseParameters: {},
    },
    {
      logicalId: 'Default5xx',
      responseType: 'DEFAULT_5XX',
      responseTemplates: { 'application/json': ENVELOPE(1000, 'internal error') },
      responseParameters: {},
    },
    {
      logicalId: 'Default4xx',
      responseType: 'DEFAULT_4XX',
      responseTemplates: { 'application/json': ENVELOPE(1006, 'invalid request') },
      responseParameters: {},
    },
  ],
  stages: [
    {
      stageName: 'v1',
      methodSettings: [
        { resourcePath: '/*', httpMethod: '*', throttlingRateLimit: 1000, throttlingBurstLimit: 1000 },
        {
          resourcePath: '/~1throttled~1{action}',
          httpMethod: 'GET',
          // A token every 100 s: the bucket does not refill while a test on a busy machine sends its requests.
          throttlingRateLimit: 0.01,
          throttlingBurstLimit: 2,
        },
      ],
      tracingEnabled: false,
    },
  ],
  usagePlans: [],
};

/** A method of the API, integrated with `functionName` as a Lambda proxy. */
export function method(
  httpMethod: string,
  path: string,
  authorizationType: string,
  functionName = 'gw-integration',
) {
  return {
    logicalId: `${httpMethod}${path.replace(/\W/g, '')}`,
    path,
    httpMethod,
    authorizationType,
    authorizerLogicalId: authorizationType === 'CUSTOM' ? 'Authorizer' : undefined,
    apiKeyRequired: false,
    integration: { type: 'AWS_PROXY', functionName },
  };
}

/** API key values: 20..128 alphanumeric characters, as API Gateway takes them. `late` is in no plan. */
export const USAGE_KEYS = {
  alpha: 'alphaKey000000000000000001',
  beta: 'betaKey0000000000000000002',
  off: 'offKey00000000000000000003',
  late: 'lateKey0000000000000000004',
};

/**
 * GATEWAY_TEST_API with methods that require an API key, from the authorizer or the X-API-Key header, and
 * one usage plan (burst 2, refilled at 0.01 a second: not while a test runs) of the keys alpha, beta and off
 * (disabled).
 */
export function meteredApi(apiKeySource: 'AUTHORIZER' | 'HEADER'): RestApiSpec {
  return {
    ...GATEWAY_TEST_API,
    id: `gw${apiKeySource.toLowerCase()}`,
    apiKeySource,
    methods: [
      { ...method('GET', '/metered/{action}', 'CUSTOM'), apiKeyRequired: true },
      { ...method('GET', '/keyed/{action}', 'NONE'), apiKeyRequired: true },
      method('GET', '/public/{action}', 'NONE'),
    ],
    usagePlans: [
      {
        logicalId: 'Plan',
        stackPath: 'GatewayTest',
        id: 'plan01',
        throttle: { rateLimit: 0.01, burstLimit: 2 },
        stages: ['v1'],
        methodThrottles: [],
        keys: [
          { id: 'k-alpha', value: USAGE_KEYS.alpha, enabled: true },
          { id: 'k-beta', value: USAGE_KEYS.beta, enabled: true },
          { id: 'k-off', value: USAGE_KEYS.off, enabled: false },
        ],
      },
    ],
  };
}
