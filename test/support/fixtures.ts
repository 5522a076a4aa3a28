import { afterAll, beforeAll } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { createTestAccount } from './accounts';
import { type CallOptions, call, expectSuccess } from './http';
import { startTestApi, type TestApi, type TestApiOptions } from './local-api';

export interface TestAccount {
  accountId: string;
  key: string;
  keyId: string;
}

/** Calls of the test API, bare or with an account's API key or a driver's login token. */
export interface ApiCaller {
  request(method: string, path: string, options?: CallOptions): ReturnType<typeof call>;
  /** A call with the account's API key and an optional JSON body. */
  asAccount(method: string, path: string, body?: unknown): ReturnType<typeof call>;
  /** A call of the driver app, signed with a login token. */
  asDriver(token: string, method: string, path: string, body?: unknown): ReturnType<typeof call>;
}

export function apiCaller(url: string, account?: { key: string }): ApiCaller {
  const request = (method: string, path: string, options: CallOptions = {}) =>
    call(url, method, path, options);
  return {
    request,
    asAccount: (method, path, body) => {
      if (!account) throw new Error('this caller has no account');
      return request(method, path, { key: account.key, body });
    },
    asDriver: (token, method, path, body) => request(method, path, { key: token, body }),
  };
}

/** The local API of a test file, started in its beforeAll and closed in its afterAll. */
export interface TestApiFixture {
  /** The running API (from the file's beforeAll on). */
  readonly api: TestApi;
  /** A new account with these DCs (default dc-1 and dc-2, in Chicago): its ids never meet another test's. */
  account(name?: string, dcs?: { dcId: string; timeZone?: string }[]): Promise<TestAccount>;
  /** A call of the running API, bare or as `options` say. */
  request: ApiCaller['request'];
  /** A call with `key` (an API key or a driver's login token) and an optional JSON body. */
  as(key: string, method: string, path: string, body?: unknown): ReturnType<typeof call>;
  /** Creates a driver of the DC with the account's `key`; answers the login token the service issued it. */
  createDriver(key: string, dcId: string, driverId: string, driverName: string): Promise<string>;
}

/**
 * Starts the file's local API in a beforeAll (call at the top of the file, before other hooks that use it)
 * and closes it in an afterAll. Accounts made through it are the fixtures tests build their own data in.
 */
export function useTestApi(name: string, options?: TestApiOptions, startTimeoutMs?: number): TestApiFixture {
  let api: TestApi | undefined;
  beforeAll(async () => {
    api = await startTestApi(name, options);
  }, startTimeoutMs);
  afterAll(() => api?.close());
  const running = () => {
    if (!api) throw new Error(`the test API ${name} has not started`);
    return api;
  };
  return {
    get api() {
      return running();
    },
    account: (accountName = 'Acme', dcs = [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]) =>
      createTestAccount(accountName, dcs),
    request: (method, path, options) => call(running().url, method, path, options),
    as: (key, method, path, body) => call(running().url, method, path, { key, body }),
    createDriver: async (key, dcId, driverId, driverName) => {
      const created = await call(running().url, 'POST', `/dcs/${dcId}/drivers`, {
        key,
        body: { driver_id: driverId, driver_name: driverName },
      });
      return (expectSuccess(created, drivers.createDriver) as { driver: { login_token: string } }).driver
        .login_token;
    },
  };
}

/** A fixture made on first use and shared by every test that asks for it afterwards. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
