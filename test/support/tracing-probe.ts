/**
 * Runs one real endpoint handler in a process that looks like Lambda to the X-Ray SDK (the test sets the
 * environment, its UDP socket is the daemon) and prints what it found, prefixed with PROBE.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

const { tracer } = await import('../../functions/shared/observability');
const { handler } = await import('../../functions/api/analytics/column-definitions/handler');

const event = {
  resource: '/analytics/column-definitions',
  path: '/analytics/column-definitions',
  httpMethod: 'GET',
  headers: { Authorization: `Bearer ${process.env.PROBE_SECRET}` },
  pathParameters: null,
  queryStringParameters: null,
  body: null,
  isBase64Encoded: false,
  requestContext: {
    requestId: 'probe-request',
    authorizer: { account_id: 'acc_probe', dc_ids: '[]' },
  },
} as unknown as APIGatewayProxyEvent;
const context = {
  awsRequestId: 'probe-invocation',
  functionName: 'probe',
  getRemainingTimeInMillis: () => 10_000,
} as Context;

const response = (await handler(event, context)) as APIGatewayProxyResult;
const namespaces = (process as { namespaces?: Record<string, unknown> }).namespaces ?? {};
console.log(
  `PROBE ${JSON.stringify({
    tracing: tracer?.isTracingEnabled() ?? false,
    xrayLoaded: 'AWSXRay' in namespaces,
    statusCode: response.statusCode,
  })}`,
);
