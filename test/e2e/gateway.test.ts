import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dcs from '../../functions/api/dcs/index';
import { endpoints } from '../../functions/api/index';
import { buildOpenApiDocument } from '../../functions/api/openapi';
import { issueApiKey, revokeApiKey } from '../../functions/domain/accounts';
import { sha256Hex } from '../../functions/shared/crypto';
import { createTestAccount } from '../support/accounts';
import { call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { scanItems } from '../support/table-scans';

let api: TestApi;
let acme: { accountId: string; key: string; keyId: string };

beforeAll(async () => {
  api = await startTestApi('gateway');
  acme = await createTestAccount('Acme', [{ dcId: 'north' }, { dcId: 'south', timeZone: 'Asia/Tokyo' }]);
  await createTestAccount('Globex', [{ dcId: 'elsewhere' }]);
});

afterAll(() => api?.close());

describe('GET /dcs', () => {
  it('lists the DCs of the key’s account with their time zones, and only those', async () => {
    const data = expectSuccess(await call(api.url, 'GET', '/dcs', { key: acme.key }), dcs.listDcs);
    expect(data).toEqual({
      dcs: [
        { id: 'north', name: 'north', time_zone: 'America/Chicago' },
        { id: 'south', name: 'south', time_zone: 'Asia/Tokyo' },
      ],
    });
  });

  it('answers 401 without a key', async () => {
    expectError(await call(api.url, 'GET', '/dcs'), 401, 1001);
  });
});

describe('API keys', () => {
  it.each([
    ['no Authorization header', {}],
    ['a Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a key', { Authorization: 'Bearer ' }],
    ['a key with a space in it', { Authorization: 'Bearer drs_a b' }],
    ['an unknown key', { Authorization: 'Bearer drs_0000000000000000000000000000000000000000000' }],
  ])('refuses %s with 401 and 1001', async (_, headers) => {
    expectError(await call(api.url, 'GET', '/dcs', { headers }), 401, 1001);
  });

  it('accepts a second key of the same account and refuses a revoked one', async () => {
    const second = await issueApiKey(acme.accountId);
    expectSuccess(await call(api.url, 'GET', '/dcs', { key: second.apiKey }), dcs.listDcs);

    const doomed = await issueApiKey(acme.accountId);
    await revokeApiKey(acme.accountId, doomed.keyId);
    expectError(await call(api.url, 'GET', '/dcs', { key: doomed.apiKey }), 401, 1001);
    expectSuccess(await call(api.url, 'GET', '/dcs', { key: acme.key }), dcs.listDcs);
  });

  it('stores no key in the table, only its SHA-256 hash', async () => {
    const dump = JSON.stringify(await scanItems());
    expect(dump).not.toContain(acme.key);
    expect(dump).toContain(sha256Hex(acme.key));
  });
});

describe('unknown endpoints', () => {
  it.each([
    ['GET', '/nowhere'],
    ['GET', '/dcs/north'],
    ['POST', '/dcs'],
    ['DELETE', '/dcs/north/drivers'],
    ['GET', '/dcs/north/drivers/x/unknown'],
  ])('%s %s answers 404 with 1007, with or without a key', async (method, path) => {
    expectError(await call(api.url, method, path), 404, 1007);
    expectError(await call(api.url, method, path, { key: acme.key }), 404, 1007);
  });
});

describe('GET /openapi.json', () => {
  it('serves the OpenAPI 3.1 document without a key or an envelope', async () => {
    const response = await call(api.url, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body as unknown as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/dcs/{dc_id}/drivers/{driver_id}/finish-routes');
  });

  it('serves the very document the tests check every answer against', async () => {
    const served = (await call(api.url, 'GET', '/openapi.json')).body;
    expect(served).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(endpoints))));
  });
});
