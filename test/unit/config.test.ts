import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { getAccount } from '../../functions/data/accounts';
import { db, tableName } from '../../functions/data/client';
import { putEventItem } from '../../functions/data/events';
import * as channels from '../../functions/models/channels';
import { exampleEvent } from '../../functions/models/event-docs';
import { awsClientOptions, config, configure, resetConfig } from '../../functions/shared/config';
import { send } from '../../functions/shared/queues';

const ROOT = join(import.meta.dirname, '../..');

/** Every module of functions/ (handlers included), as paths from the repository's root. */
function functionModules(dir = join(ROOT, 'functions')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return functionModules(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

afterEach(() => resetConfig());

describe('the service configuration', () => {
  it('lets every module of functions/ load with none of its variables set', async () => {
    const modules = functionModules();
    expect(modules.length).toBeGreaterThan(100);
    // A process of its own whose environment has no TABLE_NAME, BUCKET_NAME, queue URL or key: a module that
    // read one at import would throw here. Nothing is called, so nothing needs AWS.
    const script = `for (const path of ${JSON.stringify(modules)}) await import('./' + path); console.log('LOADED');`;
    const { stdout } = await promisify(execFile)(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['--input-type=module', '-e', script],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', POWERTOOLS_METRICS_DISABLED: 'true' },
        timeout: 120_000,
      },
    );
    expect(stdout).toContain('LOADED');
  }, 150_000);

  it('fails at the first use of a missing variable, with an error naming it', async () => {
    configure({ TABLE_NAME: undefined, BUCKET_NAME: undefined, DELIVERY_QUEUE_URL: undefined });
    expect(() => tableName()).toThrow('environment variable TABLE_NAME is not set');
    await expect(getAccount('acc_0123456789abcdef')).rejects.toThrow(
      'environment variable TABLE_NAME is not set',
    );
    expect(() => config().bucketName).toThrow('environment variable BUCKET_NAME is not set');
    await expect(
      send(channels.deliveries, {
        account_id: 'acc',
        webhook_id: 'wh',
        event: exampleEvent('PING'),
        attempt: 1,
      }),
    ).rejects.toThrow('environment variable DELIVERY_QUEUE_URL is not set');
  });

  it('reads only what is used: a function without a bucket works with its table', () => {
    configure({ TABLE_NAME: 'orders', BUCKET_NAME: undefined });
    expect(tableName()).toBe('orders');
    expect(() => config().bucketName).toThrow(/BUCKET_NAME/);
  });

  it('takes overrides from tests, the bench and tools, without process.env', () => {
    expect(process.env.TABLE_NAME).toBeUndefined();
    configure({ TABLE_NAME: 'from-a-test', ROUTE_DELETION_ROWS_PER_MESSAGE: '7' });
    const event = putEventItem({
      accountId: 'acc_0123456789abcdef',
      dcId: 'dc-1',
      routeId: 'r-1',
      type: 'ROUTE_STARTED',
      details: { driver_id: 'drv-1', started_timestamp: 1_700_000_000_000 },
      occurredAt: 1_700_000_000_000,
    });
    expect(event.Put.TableName).toBe('from-a-test');
    expect(config().routeDeletionRowsPerMessage).toBe(7);
    expect(process.env.TABLE_NAME).toBeUndefined();

    configure({ TABLE_NAME: 'another' });
    expect(tableName()).toBe('another');
    resetConfig();
    expect(() => tableName()).toThrow(/TABLE_NAME/);
  });

  it("gives the service's SDK clients the endpoint, region and credentials it was configured with", async () => {
    configure({
      AWS_REGION: 'eu-north-1',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8999',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    expect(awsClientOptions('DYNAMODB')).toEqual({
      region: 'eu-north-1',
      endpoint: 'http://127.0.0.1:8999',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local', sessionToken: undefined },
    });
    expect(await db.config.region()).toBe('eu-north-1');
    // A client follows the configuration it was made for: configured again, the next use makes a new one.
    configure({ AWS_REGION: 'ap-southeast-2' });
    expect(await db.config.region()).toBe('ap-southeast-2');
    // Without overrides the SDK reads its own variables, as on Lambda.
    resetConfig();
    expect(awsClientOptions('SQS')).toEqual({});
  });
});
