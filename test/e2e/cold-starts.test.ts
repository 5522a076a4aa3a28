import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readDeployment } from '../../local/cloud/deployment';
import { startTestApi, type TestApi } from '../support/local-api';

/**
 * Every function of the deployment initialises in an execution environment of its own, from its production
 * bundle, with exactly the environment its template gives it and tracing on as deployed (the X-Ray SDK loads
 * at init). A module that reads, at import, a variable CDK sets only where a resource is granted fails here,
 * as it would fail every cold start on AWS.
 */

const entries = readDeployment(inject('assemblyDir'), {
  namePrefix: 'list',
  awsEndpoint: 'http://127.0.0.1',
}).functions.map((fn) => fn.entry);

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi('cold-starts', { pollers: false, tracing: true });
});

afterAll(() => api?.close());

describe('every function of the deployment', () => {
  it('is one of more than 40, each built from its own entry', () => {
    expect(entries.length).toBeGreaterThan(40);
    expect(new Set(entries).size).toBe(entries.length);
  });

  it.each(entries)('%s initialises', async (entry) => {
    const outcome = await api.cloud.lambda.provision(api.cloud.functionOf(entry).name);
    const output = api.logs.map((record) => record.line).join('\n');
    expect(outcome, output).toMatchObject({ ok: true });
  });
});
