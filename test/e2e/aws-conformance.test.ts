import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRoute } from '../../functions/api/routes/index';
import { accountCallerContext } from '../../functions/shared/auth-context';
import { createTestAccount } from '../support/accounts';
import { capture, inPath } from '../support/aws-captures';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, importRoute } from '../support/routes';

/**
 * The service's handlers run on events shaped as AWS delivers them: captures of real AWS events
 * (test/fixtures/aws/, whose README names each source), with only what names our API, account and ids put
 * in, in one place each (`onOurApi`).
 */

/** Ids with a space, `%`, `+`, an accent, CJK and an emoji: what a REST API passes on percent-encoded. */
const DC = 'DC 1';
const ROUTE = 'R 100%+é-東京-🚚';

let api: TestApi;
let account: Awaited<ReturnType<typeof createTestAccount>>;

beforeAll(async () => {
  api = await startTestApi('aws-conformance');
  account = await createTestAccount('conformance', [{ dcId: DC }]);
  await importRoute(api.url, account.key, inPath(DC), exampleRoute(ROUTE));
}, 120_000);

afterAll(async () => {
  await api?.close();
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

async function invokeHandler(row: { module: string }, event: APIGatewayProxyEvent) {
  const result = await api.invoke(row, event);
  expect(result.kind, JSON.stringify(result)).toBe('success');
  const response = (result as { payload: APIGatewayProxyResult }).payload;
  return { status: response.statusCode, body: JSON.parse(response.body) };
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
});
