import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiKeyAuthorizer } from '../../functions/api/auth/api-key-authorizer/authorizer';
import { createImportUpload, getRoute } from '../../functions/api/routes/index';
import * as channels from '../../functions/models/channels';
import { accountCallerContext } from '../../functions/shared/auth-context';
import type { Channel } from '../../functions/shared/channel';
import { fanOutEvents } from '../../functions/workers/fan-out-events/consumer';
import { importRoutes } from '../../functions/workers/import-routes/consumer';
import { type ApiGateway, startApiGateway } from '../../local/api-gateway/server';
import type { ApiMethodSpec, FunctionSpec, RestApiSpec } from '../../local/cloud/model';
import type { LambdaRuntime } from '../../local/lambda/runtime';
import { AUTHORIZER_EVENT } from '../fixtures/lambda/conformance';
import { createTestAccount } from '../support/accounts';
import { capture, differences, inPath } from '../support/aws-captures';
import { DIFFERENCES, ITEM_IMAGES, withoutAddedHeaders } from '../support/aws-differences';
import { call, expectSuccess } from '../support/http';
import { startFixtureLambdas } from '../support/lambda-fixtures';
import { startTestApi, type TestApi } from '../support/local-api';
import {
  bucketKeyOfLink,
  exampleRoute,
  importRoute,
  putUploadObject,
  waitForImport,
} from '../support/routes';

/**
 * The local runtime's events held against captures of real AWS events (test/fixtures/aws/; its README names
 * each source), field by field: names, JSON types, nesting, encoding, and values, except the values listed
 * in DIFFERENCES (test/support/aws-differences.ts), each with the reason it differs. Any other difference
 * fails. Then the service's handlers run on the captured events, with our API, account and ids put in
 * (`onOurApi` and the like).
 */

// ---------------------------------------------------------------------------------------------------------
// The local gateway, in front of an API like each captured one
// ---------------------------------------------------------------------------------------------------------

const ENTRY = 'test/fixtures/lambda/conformance.ts';
const FUNCTIONS: FunctionSpec[] = ['echo', 'authorizer'].map((name) => ({
  logicalId: name,
  stackPath: 'ConformanceTest',
  name: `conformance-${name}`,
  arn: `arn:aws:lambda:us-east-1:000000000000:function:conformance-${name}`,
  entry: ENTRY,
  bundledFiles: [],
  handler: `index.${name}`,
  runtime: 'nodejs22.x',
  architectures: ['arm64'],
  memorySize: 512,
  timeoutSeconds: 10,
  environment: {},
  roleArn: `arn:aws:iam::000000000000:role/conformance-${name}`,
}));

/** A method of a mirrored API; its logical id is the captured `resourceId`, so that one compares too. */
function method(httpMethod: string, path: string, resourceId: string, authorized: boolean): ApiMethodSpec {
  return {
    logicalId: resourceId,
    path,
    httpMethod,
    authorizationType: authorized ? 'CUSTOM' : 'NONE',
    authorizerLogicalId: authorized ? 'Authorizer' : undefined,
    apiKeyRequired: false,
    integration: { type: 'AWS_PROXY', functionName: 'conformance-echo' },
  };
}

/** An API with the captured API's id and stage and the captured requests' resources. */
function mirroredApi(id: string, stageName: string, methods: ApiMethodSpec[]): RestApiSpec {
  return {
    logicalId: 'Api',
    stackPath: 'ConformanceTest',
    id,
    name: 'conformance',
    methods,
    authorizers: [
      {
        logicalId: 'Authorizer',
        type: 'REQUEST',
        functionName: 'conformance-authorizer',
        identitySources: ['method.request.header.Authorization'],
        resultTtlSeconds: 0,
      },
    ],
    gatewayResponses: [],
    stages: [{ stageName, methodSettings: [], tracingEnabled: false }],
    usagePlans: [],
  };
}

let scratch: string;
let lambda: LambdaRuntime;
/** Like the API of the Powertools captures: puhdx84jy9, stage prod, account 123456789012, eu-west-1. */
let powertoolsApi: ApiGateway;
/** Like the API of the voker capture: 5h7pqvr9u4, stage live, account 910345601053, us-west-2. */
let vokerApi: ApiGateway;

/** Sends a request exactly as written (path, header names and order, repeated headers); the echoed event. */
function send(
  gateway: ApiGateway,
  request: { method: string; path: string; headers: Record<string, string | string[]>; body?: string },
): Promise<APIGatewayProxyEvent> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(gateway.url);
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers: request.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) reject(new Error(`${response.statusCode}: ${text}`));
          else resolve(JSON.parse(text) as APIGatewayProxyEvent);
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body ?? '');
  });
}

/** The client headers of the Powertools captures (HTTPie 3.2.2; POST without a body). */
function httpieHeaders(captured: { headers: Record<string, string | undefined> }) {
  const { Accept, 'Accept-Encoding': acceptEncoding, Authorization, Host } = captured.headers;
  return {
    Accept: Accept as string,
    'Accept-Encoding': acceptEncoding as string,
    Authorization: Authorization as string,
    'Content-Length': '0',
    Host: Host as string,
    'User-Agent': 'HTTPie/3.2.2',
  };
}

describe("the local gateway's events, against API Gateway's", () => {
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'conformance-'));
    lambda = await startFixtureLambdas(FUNCTIONS, scratch);
    powertoolsApi = await startApiGateway({
      api: mirroredApi('puhdx84jy9', 'prod', [
        method('POST', '/lambda-token', 'nmnny7', true),
        method('POST', '/lambda-request', 'w567jh', true),
      ]),
      lambda,
      accountId: '123456789012',
      region: 'eu-west-1',
    });
    vokerApi = await startApiGateway({
      api: mirroredApi('5h7pqvr9u4', 'live', [method('POST', '/capture/{value}', 'al6gqb', false)]),
      lambda,
      accountId: '910345601053',
      region: 'us-west-2',
    });
  }, 120_000);

  afterAll(async () => {
    await powertoolsApi?.close();
    await vokerApi?.close();
    await lambda?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('the proxy event of a method behind a Lambda authorizer is the captured one', async () => {
    const captured = capture<APIGatewayProxyEvent>('rest-proxy-lambda-authorizer');
    const event = await send(powertoolsApi, {
      method: 'POST',
      path: '/lambda-token',
      headers: httpieHeaders(captured),
    });
    // The fixture authorizer's own event, which the captured authorizer did not put in its context.
    delete (event.requestContext.authorizer as Record<string, unknown>)[AUTHORIZER_EVENT];
    expect(differences(event, withoutAddedHeaders(captured), { valuesThatDiffer: DIFFERENCES.rest })).toEqual(
      [],
    );
  });

  it("the REQUEST authorizer's event is the captured one", async () => {
    const captured = capture<APIGatewayRequestAuthorizerEvent>('rest-request-authorizer');
    const proxied = await send(powertoolsApi, {
      method: 'POST',
      path: '/lambda-request',
      headers: httpieHeaders(captured as { headers: Record<string, string | undefined> }),
    });
    const context = proxied.requestContext.authorizer as Record<string, string>;
    const event = JSON.parse(context[AUTHORIZER_EVENT] as string) as unknown;
    expect(differences(event, withoutAddedHeaders(captured), { valuesThatDiffer: DIFFERENCES.rest })).toEqual(
      [],
    );
  });

  it('passes the path, path parameters and query encoded as API Gateway does', async () => {
    const captured = withoutAddedHeaders(capture<APIGatewayProxyEvent>('rest-proxy-encoded-path'));
    // The query the probe sent (its Function URL capture's rawQueryString), to the same path.
    const query =
      'repeat=one&repeat=two&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&encodedPlus=a%2Bb&empty=';
    const event = await send(vokerApi, {
      method: 'POST',
      path: `/capture/space%20value?${query}`,
      headers: {
        Host: captured.headers.Host as string,
        'User-Agent': 'curl/8.7.1',
        accept: '*/*',
        'content-type': 'application/json',
        cookie: 'session=abc123; theme=dark',
        'x-voker-probe': ['first', 'second'],
      },
      body: captured.body as string,
    });
    // This capture was logged through a typed struct (fields it lacked came out as ""; see the fixtures'
    // README): its values are compared, field by field, not its types.
    for (const field of [
      'path',
      'httpMethod',
      'headers',
      'multiValueHeaders',
      'queryStringParameters',
      'multiValueQueryStringParameters',
      'stageVariables',
      'body',
      'isBase64Encoded',
    ] as const)
      expect(event[field], field).toEqual(captured[field]);
    for (const field of [
      'path',
      'stage',
      'apiId',
      'accountId',
      'domainName',
      'domainPrefix',
      'protocol',
    ] as const)
      expect(event.requestContext[field], `requestContext.${field}`).toEqual(captured.requestContext[field]);
    expect(event.requestContext.identity.userAgent).toBe(captured.requestContext.identity.userAgent);
    // The captured API had a greedy /{proxy+} resource (the local gateway serves none; the service has none):
    // the same segment, still percent-encoded, in the parameter of /capture/{value}.
    expect(captured.pathParameters?.proxy).toBe('capture/space%20value');
    expect(event.pathParameters).toEqual({ value: 'space%20value' });
  });
});

// ---------------------------------------------------------------------------------------------------------
// The service on the local runtime: what its functions are given, and what they make of AWS's events
// ---------------------------------------------------------------------------------------------------------

/** Ids with a space, `%`, `+`, an accent, CJK and an emoji: what a REST API passes on percent-encoded. */
const DC = 'DC 1';
const ROUTE = 'R 100%+é-東京-🚚';

let api: TestApi;
let account: Awaited<ReturnType<typeof createTestAccount>>;
/** Every event the local runtime gave a function, in order. */
const delivered: { functionName: string; event: unknown }[] = [];

beforeAll(async () => {
  api = await startTestApi('aws-conformance', { streams: true });
  const invoke = api.cloud.lambda.invoke.bind(api.cloud.lambda);
  api.cloud.lambda.invoke = (functionName, event, options) => {
    delivered.push({ functionName, event });
    return invoke(functionName, event, options);
  };
  account = await createTestAccount('conformance', [{ dcId: DC }]);
  await importRoute(api.url, account.key, inPath(DC), exampleRoute(ROUTE));
}, 120_000);

afterAll(async () => {
  await api?.close();
});

/** The SQS events the local event sources gave a consumer, waiting (with a deadline) for one that `has`. */
async function sqsEventFor(row: { module: string }, has: (record: SQSRecord) => boolean): Promise<SQSEvent> {
  const functionName = api.functionName(row);
  const find = () =>
    delivered.find(
      (entry) => entry.functionName === functionName && ((entry.event as SQSEvent).Records ?? []).some(has),
    )?.event as SQSEvent | undefined;
  await expect.poll(() => find() !== undefined, { timeout: 60_000 }).toBe(true);
  return find() as SQSEvent;
}

/** A route upload PUT through its presigned link, as a client does; its object key. */
async function upload(route: unknown): Promise<{ txid: string; key: string }> {
  const created = expectSuccess(
    await call(api.url, 'POST', `/dcs/${inPath(DC)}/invoiced-routes/uploads`, { key: account.key }),
    createImportUpload,
    202,
  ) as { txid: string; upload_url: string };
  const url = new URL(created.upload_url);
  const put = await fetch(url, { method: 'PUT', body: JSON.stringify({ route }) });
  expect(put.status).toBe(200);
  return { txid: created.txid, key: bucketKeyOfLink(created.upload_url) };
}

describe("the local event sources' events, against AWS's", () => {
  it("the SQS event of S3's ObjectCreated:Put notification is the captured one", async () => {
    const { key } = await upload(exampleRoute('R-uploaded'));
    const event = await sqsEventFor(importRoutes, (record) => record.body.includes(key));
    const captured = capture<SQSEvent>('sqs-s3-object-created');
    expect(differences(event, captured, { valuesThatDiffer: DIFFERENCES.sqs })).toEqual([]);
    const notification = JSON.parse((event.Records[0] as SQSRecord).body) as unknown;
    const capturedNotification = JSON.parse((captured.Records[0] as SQSRecord).body) as unknown;
    expect(differences(notification, capturedNotification, { valuesThatDiffer: DIFFERENCES.s3 })).toEqual([]);
  });

  it("the pipe's message for a new event item is the captured stream record", async () => {
    const event = await sqsEventFor(fanOutEvents, (record) => record.body.includes('ROUTE_CREATED'));
    const message = JSON.parse((event.Records[0] as SQSRecord).body) as Record<string, unknown>;
    const captured = capture('pipe-dynamodb-record');
    expect(differences(message, captured, { valuesThatDiffer: DIFFERENCES.pipe, maps: ITEM_IMAGES })).toEqual(
      [],
    );
    // Encoding: whole epoch seconds, as DynamoDB Streams rounds the time down.
    const created = (message.dynamodb as { ApproximateCreationDateTime: number }).ApproximateCreationDateTime;
    expect(Number.isInteger(created), String(created)).toBe(true);
  });
});

/**
 * A captured REST proxy event (API Gateway's Lambda proxy integration, payload 1.0, behind a Lambda
 * authorizer) as API Gateway would send it for `method resource` of our API: the resource, path and path
 * parameters (percent-encoded, as API Gateway leaves them), the account and the authorizer's context put in;
 * everything else as captured.
 */
function onOurApi(
  method: string,
  resource: string,
  pathParameters: Record<string, string>,
): APIGatewayProxyEvent {
  const event = capture<APIGatewayProxyEvent>('rest-proxy-lambda-authorizer');
  const path = resource.replace(/\{(\w+)\}/g, (_, name: string) => pathParameters[name] as string);
  const { integrationLatency } = event.requestContext.authorizer as { integrationLatency: number };
  return {
    ...event,
    resource,
    path,
    httpMethod: method,
    pathParameters,
    requestContext: {
      ...event.requestContext,
      accountId: api.cloud.deployment.accountId,
      httpMethod: method,
      resourcePath: resource,
      path: `/${event.requestContext.stage}${path}`,
      authorizer: {
        ...accountCallerContext({ accountId: account.accountId, dcIds: [DC] }),
        principalId: account.accountId,
        integrationLatency,
      },
    },
  };
}

/** A captured SQS event with our queue and `body` put in. */
function sqsEventOf(body: unknown, queue: Channel): SQSEvent {
  const event = capture<SQSEvent>('sqs-s3-object-created');
  const record = event.Records[0] as SQSRecord;
  return { Records: [{ ...record, body: JSON.stringify(body), eventSourceARN: api.cloud.queue(queue).arn }] };
}

async function invokeHandler(row: { module: string }, event: APIGatewayProxyEvent) {
  const result = await api.invoke(row, event);
  expect(result.kind, JSON.stringify(result)).toBe('success');
  const response = (result as { payload: APIGatewayProxyResult }).payload;
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

async function invokeConsumer(row: { module: string }, event: SQSEvent) {
  const result = await api.invoke(row, event);
  expect(result.kind, JSON.stringify(result)).toBe('success');
  return (result as { payload: { batchItemFailures: unknown[] } }).payload;
}

describe('the handlers, on events as AWS delivers them', () => {
  it('GET /dcs/{dc_id}/routes/{route_id} reads ids API Gateway passes percent-encoded, decoded once', async () => {
    const event = onOurApi('GET', '/dcs/{dc_id}/routes/{route_id}', {
      dc_id: inPath(DC),
      route_id: inPath(ROUTE),
    });
    const response = await invokeHandler(getRoute, event);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.route.id).toBe(ROUTE);
  });

  it('refuses a path parameter that is not valid percent-encoding with 1006 naming it', async () => {
    for (const routeId of ['R%', 'R%2', 'R%E6%9D']) {
      const event = onOurApi('GET', '/dcs/{dc_id}/routes/{route_id}', {
        dc_id: inPath(DC),
        route_id: routeId,
      });
      const response = await invokeHandler(getRoute, event);
      expect(response.status, routeId).toBe(400);
      expect(response.body.data.code).toBe(1006);
      expect(response.body.data.message).toMatch(/^path\.route_id: /);
    }
  });

  it("the API key authorizer allows the captured REQUEST authorizer's event with our key", async () => {
    const event = capture<APIGatewayRequestAuthorizerEvent>('rest-request-authorizer');
    const bearer = `Bearer ${account.key}`;
    const result = await api.invoke(apiKeyAuthorizer, {
      ...event,
      headers: { ...event.headers, Authorization: bearer },
      multiValueHeaders: { ...event.multiValueHeaders, Authorization: [bearer] },
    });
    expect(result.kind, JSON.stringify(result)).toBe('success');
    const [arn] = event.methodArn.split('/');
    expect((result as { payload: unknown }).payload).toMatchObject({
      principalId: account.accountId,
      policyDocument: { Statement: [{ Effect: 'Allow', Resource: `${arn}/prod/*/*` }] },
      context: { account_id: account.accountId },
    });
  });

  it('the import worker starts the import that a captured S3 notification reports for our upload', async () => {
    const created = expectSuccess(
      await call(api.url, 'POST', `/dcs/${inPath(DC)}/invoiced-routes/uploads`, { key: account.key }),
      createImportUpload,
      202,
    ) as { txid: string; upload_url: string };
    // Written to the emulator itself, behind the local S3 (which would send its own notification).
    const key = await putUploadObject(api, created.upload_url, exampleRoute('R-notified'), {
      endpoint: inject('awsEndpoint'),
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const notification = JSON.parse(
      (capture<SQSEvent>('sqs-s3-object-created').Records[0] as SQSRecord).body,
    ) as { Records: { s3: { bucket: Record<string, unknown>; object: Record<string, unknown> } }[] };
    const [record] = notification.Records;
    if (!record) throw new Error('the capture has no record');
    record.s3.bucket.name = api.resources.bucketName;
    record.s3.bucket.arn = `arn:aws:s3:::${api.resources.bucketName}`;
    // S3 writes the key URL-encoded as a form value; ours needs no escaping.
    record.s3.object.key = key;
    expect(await invokeConsumer(importRoutes, sqsEventOf(notification, channels.imports))).toEqual({
      batchItemFailures: [],
    });
    const finished = await waitForImport(api.url, account.key, inPath(DC), created.txid);
    expect(finished.status, finished.text).toBe(200);
  });

  it("the import worker ignores S3's captured s3:TestEvent", async () => {
    const before = api.logs.length;
    expect(
      await invokeConsumer(importRoutes, sqsEventOf(capture('s3-test-event'), channels.imports)),
    ).toEqual({
      batchItemFailures: [],
    });
    expect(api.logs.slice(before).some(({ line }) => line.includes('S3 test event ignored'))).toBe(true);
  });

  it("the fan-out worker reads the captured pipe message: ours fanned out, another table's item skipped", async () => {
    const captured = capture('pipe-dynamodb-record');
    expect(await invokeConsumer(fanOutEvents, sqsEventOf(captured, channels.events))).toEqual({
      batchItemFailures: [],
    });
    // Our event item's images in the captured record.
    const ours = await sqsEventFor(fanOutEvents, (record) => record.body.includes('ROUTE_CREATED'));
    const { dynamodb } = JSON.parse((ours.Records[0] as SQSRecord).body) as {
      dynamodb: { Keys: unknown; NewImage: { event_id: { S: string } } };
    };
    const before = api.logs.length;
    const message = { ...captured, dynamodb: { ...(captured.dynamodb as object), ...dynamodb } };
    expect(await invokeConsumer(fanOutEvents, sqsEventOf(message, channels.events))).toEqual({
      batchItemFailures: [],
    });
    const fannedOut = api.logs
      .slice(before)
      .some(({ line }) => line.includes('event fanned out') && line.includes(dynamodb.NewImage.event_id.S));
    expect(fannedOut).toBe(true);
  });
});
