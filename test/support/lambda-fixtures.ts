import { join } from 'node:path';
import { type FunctionSpec, LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/cloud/model';
import { buildBundles } from '../../local/lambda/bundles';
import { startLambdaRuntime } from '../../local/lambda/runtime';

/**
 * A function of the local runtime's model running fixture code (test/fixtures/lambda), as a synthesized
 * template would describe it: Node 22 on arm64, 128 MB, 3 s, a role of its own; `overrides` change any field.
 */
export function fixtureFunction(
  name: string,
  entry: string,
  overrides: Partial<FunctionSpec> = {},
): FunctionSpec {
  return {
    logicalId: name.replace(/\W/g, ''),
    stackPath: 'FixtureTest',
    name,
    arn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${name}`,
    entry,
    bundledFiles: [],
    handler: 'index.handler',
    runtime: 'nodejs22.x',
    architectures: ['arm64'],
    memorySize: 128,
    timeoutSeconds: 3,
    environment: {},
    roleArn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${name}-role`,
    ...overrides,
  };
}

/**
 * A GET of `resource` as API Gateway's REST proxy integration hands it to a function on stage `v1`: no query,
 * path parameters or body; `requestContext` adds the fields a test needs (caller address, request id).
 */
export function proxyGetEvent(
  resource: string,
  headers: Record<string, string>,
  requestContext: Record<string, unknown>,
) {
  return {
    resource,
    path: resource,
    httpMethod: 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      httpMethod: 'GET',
      path: `/v1${resource}`,
      resourcePath: resource,
      stage: 'v1',
      ...requestContext,
    },
  };
}

/**
 * The local Lambda runtime running `functions` (fixture code), built into `dir`: for the tests of what stands in
 * front of Lambda. Its functions get a stand-in role's credentials (no test reads them) and their logs are
 * dropped.
 */
export async function startFixtureLambdas(functions: FunctionSpec[], dir: string) {
  const bundles = await buildBundles(functions, join(dir, 'bundles'));
  return startLambdaRuntime({
    functions,
    bundles,
    credentialsFor: () => ({ accessKeyId: 'ASIAFIXTURE', secretAccessKey: 'secret', sessionToken: 'token' }),
    localEnvironment: {},
    onLog: () => {},
  });
}
