import {
  APIGatewayClient,
  APIGatewayServiceException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { beforeAll, describe, expect, it } from 'vitest';
import * as dcs from '../../functions/api/dcs/index';
import { getAccount } from '../../functions/data/accounts';
import { createApiKey } from '../../functions/data/api-gateway-keys';
import { createAccount, issueApiKey } from '../../functions/domain/accounts';
import { registerUsageKey } from '../../functions/domain/usage-keys';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/cloud/model';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { type ApiResponse, expectError, expectSuccess } from '../support/http';

/**
 * Per-account throttling through the API's usage plan, on the local runtime: each account's usage key (named
 * by the API key authorizer) has its own token bucket, so an account that spends its burst gets 429 (1008)
 * while another is served; an account whose usage key is not in the plan gets 403 (1009), as API Gateway
 * answers; the operator registers keys through the local AWS endpoint, which no function role may call.
 * The plan's throttle comes from CDK context, as `cdk deploy -c` sets it: 1 request/s, burst 5.
 */

const RATE = 1;
const BURST = 5;

const fx = useTestApi('account-throttling', {
  pollers: false,
  context: { accountThrottlingRateLimit: String(RATE), accountThrottlingBurstLimit: String(BURST) },
});
let acme: TestAccount;
let globex: TestAccount;

beforeAll(async () => {
  acme = await fx.account('Acme', [{ dcId: 'dc-1' }]);
  globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
});

const listDcs = (key: string): Promise<ApiResponse> =>
  fx.request('GET', '/dcs', { key, retryThrottled: false });

/** Waits until the account's bucket is full again (BURST tokens at RATE per second), plus a margin. */
const refill = () => new Promise((resolve) => setTimeout(resolve, ((BURST + 1) / RATE) * 1000));

describe('per-account throttling (usage plan)', () => {
  it('answers 429 (1008) to an account past its burst while another account is served', async () => {
    // One call each first, so that the hammering below meets cached authorizer results.
    expectSuccess(await listDcs(acme.key), dcs.listDcs);
    expectSuccess(await listDcs(globex.key), dcs.listDcs);
    await refill();

    const hammered = Promise.all(Array.from({ length: 4 * BURST }, () => listDcs(acme.key)));
    const others = Promise.all(Array.from({ length: BURST - 1 }, () => listDcs(globex.key)));
    const [acmeResponses, globexResponses] = await Promise.all([hammered, others]);

    const throttled = acmeResponses.filter((response) => response.status === 429);
    const served = acmeResponses.filter((response) => response.status === 200);
    expect(throttled.length + served.length, 'every answer is a 200 or a 429').toBe(4 * BURST);
    expect(throttled.length).toBeGreaterThan(0);
    for (const response of throttled) {
      expectError(response, 429, 1008);
      // A request every second refills: the account's rate, the slowest of the stage's.
      expect(response.headers.get('Retry-After')).toBe(String(1 / RATE));
    }
    // The bucket lets BURST through at once, and RATE more each second the requests took to arrive.
    expect(served.length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThan(4 * BURST);
    for (const response of globexResponses) expectSuccess(response, dcs.listDcs);
  });

  it('lets an account through again once its bucket refills', async () => {
    await refill();
    expectSuccess(await listDcs(acme.key), dcs.listDcs);
  });

  it('draws every API key of an account from the one bucket of its usage key', async () => {
    const second = await issueApiKey(acme.accountId);
    expectSuccess(await listDcs(second.apiKey), dcs.listDcs); // its authorizer result, cached
    await refill();
    const responses = await Promise.all(
      Array.from({ length: 2 * BURST }, (_, index) => listDcs(index % 2 ? second.apiKey : acme.key)),
    );
    expect(responses.filter((response) => response.status === 429).length).toBeGreaterThan(0);
  });

  it('never writes the usage key to a log line', async () => {
    for (const account of [acme, globex]) {
      const usageKey = (await getAccount(account.accountId))?.usageKey as string;
      expect(usageKey).toMatch(/^[0-9a-f]{40}$/);
      expect(fx.api.logs.filter((entry) => entry.line.includes(usageKey))).toEqual([]);
    }
  });
});

describe('accounts without a registered usage key', () => {
  it('are refused with 403 (1009) until the operator registers the key', async () => {
    const created = await createAccount({ name: 'Initech', dcs: [{ dcId: 'dc-1', timeZone: 'UTC' }] });
    expectError(await listDcs(created.apiKey), 403, 1009);

    const registered = await registerUsageKey(created.accountId);
    expect(registered.usagePlanId).toBe(fx.api.cloud.operatorEnvironment.USAGE_PLAN_ID);
    // The first key's authorizer result (without a usage key) is cached for the authorizer's TTL; a key
    // never seen before is authorized afresh.
    const fresh = await issueApiKey(created.accountId);
    expectSuccess(await listDcs(fresh.apiKey), dcs.listDcs);
    // Registering again changes nothing (the key and its place in the plan exist).
    expect(await registerUsageKey(created.accountId)).toEqual(registered);
  });

  it('are refused when their usage key is not in the plan, whatever the authorizer says', async () => {
    // The account's usage key is an API key of API Gateway, but in no usage plan.
    const created = await createAccount({ name: 'Hooli', dcs: [{ dcId: 'dc-1', timeZone: 'UTC' }] });
    const value = (await getAccount(created.accountId))?.usageKey as string;
    await createApiKey({ name: created.accountId, value, description: 'not in the plan' });
    expectError(await listDcs(created.apiKey), 403, 1009);
  });
});

describe('the API Gateway calls of the operator', () => {
  it('are refused to a function role (no function may create API keys) and allowed to the operator', async () => {
    const authorizer = fx.api.cloud.functionOf('functions/api/auth/api-key-authorizer/handler.ts');
    const role = fx.api.cloud.deployment.roles.find((candidate) => candidate.arn === authorizer.roleArn);
    if (!role) throw new Error('the authorizer has no role');
    const asAuthorizer = {
      accessKeyId: 'ASIATESTAUTHORIZER01',
      secretAccessKey: 'authorizer-secret',
      sessionToken: 'authorizer-token',
    };
    fx.api.cloud.proxy.addPrincipal({
      ...asAuthorizer,
      arn: `arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${role.name}/${authorizer.name}`,
      policies: role.policies,
    });
    const body = { name: 'sneaky', value: 'a'.repeat(30), enabled: true };
    const denied = await apiGatewayCall(asAuthorizer, (client) => client.send(new CreateApiKeyCommand(body)));
    expect(denied).toEqual({
      status: 403,
      type: 'AccessDeniedException',
      message: expect.stringContaining(
        `is not authorized to perform: apigateway:POST on resource: arn:aws:apigateway:${LOCAL_REGION}::/apikeys`,
      ),
    });
    const plan = fx.api.cloud.operatorEnvironment.USAGE_PLAN_ID as string;
    const joining = await apiGatewayCall(asAuthorizer, (client) =>
      client.send(
        new CreateUsagePlanKeyCommand({ usagePlanId: plan, keyId: 'anything', keyType: 'API_KEY' }),
      ),
    );
    expect(joining.status).toBe(403);

    const operator = { accessKeyId: 'local', secretAccessKey: 'local' };
    const created = await apiGatewayCall(operator, (client) => client.send(new CreateApiKeyCommand(body)));
    expect(created.status).toBe(201);
    const duplicate = await apiGatewayCall(operator, (client) => client.send(new CreateApiKeyCommand(body)));
    expect(duplicate).toMatchObject({ status: 409, type: 'ConflictException' });
    const tooShort = await apiGatewayCall(operator, (client) =>
      client.send(new CreateApiKeyCommand({ value: 'short' })),
    );
    expect(tooShort.status).toBe(400);
  });
});

/**
 * An API Gateway control-plane call through the SDK's client (it signs with `credentials`) at the local AWS
 * endpoint; answers the HTTP status, and for a refusal the error type and message.
 */
async function apiGatewayCall(
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  send: (client: APIGatewayClient) => Promise<{ $metadata: { httpStatusCode?: number } }>,
): Promise<{ status: number | undefined; type?: string; message?: string }> {
  const client = new APIGatewayClient({
    endpoint: fx.api.cloud.proxy.endpoint,
    region: LOCAL_REGION,
    credentials,
  });
  try {
    const output = await send(client);
    return { status: output.$metadata.httpStatusCode };
  } catch (error) {
    if (!(error instanceof APIGatewayServiceException)) throw error;
    return { status: error.$metadata.httpStatusCode, type: error.name, message: error.message };
  } finally {
    client.destroy();
  }
}
