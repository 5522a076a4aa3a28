import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount } from '../support/accounts';
import { call, expectError } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';

let api: TestApi;
let key: string;

beforeAll(async () => {
  api = await startTestApi('internal-error');
  ({ key } = await createTestAccount('Acme', [{ dcId: 'dc-1' }]));
  // Warm the authorizer cache, then take the table away: the next read really fails inside DynamoDB Local.
  await call(api.url, 'GET', '/dcs', { key });
  await new DynamoDBClient({}).send(new DeleteTableCommand({ TableName: api.tableName }));
});

afterAll(() => api?.close());

describe('an unexpected failure', () => {
  it('answers 500 with 1000 and a generic message carrying the request id, never the cause', async () => {
    const response = await call(api.url, 'GET', '/dcs/dc-1/drivers/x', { key });
    const message = expectError(response, 500, 1000);
    expect(message).toMatch(/^internal error \(request id [0-9a-f-]{36}\)$/);
    expect(response.text).not.toMatch(/ResourceNotFound|DynamoDB|stack|\.ts/i);
  });
});
