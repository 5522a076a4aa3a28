import { afterAll, beforeAll, describe, it } from 'vitest';
import * as dcs from '../../functions/api/dcs/index';
import { importRoute } from '../../functions/api/routes/index';
import { createTestAccount } from '../support/accounts';
import { type ApiResponse, call, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute } from '../support/routes';
import { expectThrottledAnswers, hammerUntilThrottled } from '../support/throttling';

/**
 * Each account's own limit on an expensive method (the endpoint's `throttling`, a per-method throttle of the
 * accounts' usage plan), on the local runtime as deployed: one account's burst of imports spends its own
 * bucket of the method, not one that every account shares, so another account's imports are still accepted.
 */

let api: TestApi;
let acme: { accountId: string; key: string };
let globex: { accountId: string; key: string };

beforeAll(async () => {
  api = await startTestApi('account-method-throttling', { pollers: false });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }]);
});

afterAll(() => api?.close());

const importAs = (account: { key: string }, routeId: string): Promise<ApiResponse> =>
  call(api.url, 'POST', '/dcs/dc-1/invoiced-routes', {
    key: account.key,
    body: { route: exampleRoute(routeId) },
    retryThrottled: false,
  });

describe('per-account method throttling (the usage plan’s per-method throttle)', () => {
  it('refuses an account’s burst of imports with 429 (1008) while another account’s imports are accepted', async () => {
    // One call each first, so that the requests below meet cached authorizer results.
    expectSuccess(await call(api.url, 'GET', '/dcs', { key: acme.key }), dcs.listDcs);
    expectSuccess(await call(api.url, 'GET', '/dcs', { key: globex.key }), dcs.listDcs);

    // Acme imports as fast as it can, from three times its burst of connections at once (accepted imports
    // wait for the import function, refusals come back at once), until Globex's imports are answered.
    const acmeAnswers = await hammerUntilThrottled({
      clients: 3 * (importRoute.throttling?.burstLimit ?? 0),
      request: (client, index) => importAs(acme, `acme-${client}-${index}`),
      notThrottled: 'Acme was not throttled',
      // Acme's bucket of the method is empty from here on: Acme takes every token it refills.
      meanwhile: async () => {
        const globexAnswers = await Promise.all(
          ['globex-1', 'globex-2', 'globex-3'].map((routeId) => importAs(globex, routeId)),
        );
        for (const answer of globexAnswers) expectSuccess(answer, importRoute, 202);
      },
    });
    expectThrottledAnswers(acmeAnswers, (answer) => expectSuccess(answer, importRoute, 202));
  }, 120_000);
});
