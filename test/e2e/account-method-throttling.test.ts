import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dcs from '../../functions/api/dcs/index';
import { importRoute } from '../../functions/api/routes/index';
import { createTestAccount } from '../support/accounts';
import { type ApiResponse, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute } from '../support/routes';

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

/** Resolves with `promise`, or fails once `ms` pass first. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('per-account method throttling (the usage plan’s per-method throttle)', () => {
  it('refuses an account’s burst of imports with 429 (1008) while another account’s imports are accepted', async () => {
    // One call each first, so that the requests below meet cached authorizer results.
    expectSuccess(await call(api.url, 'GET', '/dcs', { key: acme.key }), dcs.listDcs);
    expectSuccess(await call(api.url, 'GET', '/dcs', { key: globex.key }), dcs.listDcs);

    // Acme imports as fast as it can, from three times its burst of connections at once (accepted imports
    // wait for the import function, refusals come back at once), until Globex's imports are answered.
    const clients = 3 * (importRoute.throttling?.burstLimit ?? 0);
    const acmeAnswers: ApiResponse[] = [];
    let hammering = true;
    let throttled: () => void = () => {};
    const acmeThrottled = new Promise<void>((resolve) => {
      throttled = resolve;
    });
    const acmeClients = Array.from({ length: clients }, async (_, client) => {
      for (let index = 0; hammering; index++) {
        const answer = await importAs(acme, `acme-${client}-${index}`);
        acmeAnswers.push(answer);
        if (answer.status === 429) throttled();
      }
    });
    try {
      // Acme's bucket of the method is empty from here on: Acme takes every token it refills.
      await within(acmeThrottled, 60_000, 'Acme was not throttled');
      const globexAnswers = await Promise.all(
        ['globex-1', 'globex-2', 'globex-3'].map((routeId) => importAs(globex, routeId)),
      );
      for (const answer of globexAnswers) expectSuccess(answer, importRoute, 202);
    } finally {
      hammering = false;
      await Promise.all(acmeClients);
    }

    const acmeThrottledAnswers = acmeAnswers.filter((answer) => answer.status === 429);
    expect(acmeThrottledAnswers.length).toBeGreaterThan(0);
    for (const answer of acmeThrottledAnswers) expectError(answer, 429, 1008);
    for (const answer of acmeAnswers.filter((answer) => answer.status !== 429))
      expectSuccess(answer, importRoute, 202);
  }, 120_000);
});
