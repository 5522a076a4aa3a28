import { describe, expect, it } from 'vitest';
import type { FunctionSpec } from '../../local/cloud/model';
import { lambdaEnvironment } from '../../local/lambda/process-configuration';

/** A function as the local runtime reads it from a template, with these template variables. */
const fn = (environment: Record<string, string>): FunctionSpec => ({
  logicalId: 'Fn',
  stackPath: 'Stack',
  name: 'fn',
  arn: 'arn:aws:lambda:us-east-1:000000000000:function:fn',
  entry: 'functions/api/routes/waypoints/handler.ts',
  bundledFiles: [],
  handler: 'index.handler',
  runtime: 'nodejs22.x',
  architectures: ['arm64'],
  memorySize: 1024,
  timeoutSeconds: 10,
  environment,
  roleArn: 'arn:aws:iam::000000000000:role/fn',
});

const inputs = (environment: Record<string, string>, apiUrl?: string) => ({
  fn: fn(environment),
  taskRoot: '/task',
  runtimeDir: '/runtime',
  credentials: { accessKeyId: 'a', secretAccessKey: 's', sessionToken: 't' },
  logStreamName: 'stream',
  localEnvironment: {},
  apiUrl,
});

describe('a function’s environment on the local runtime', () => {
  const stageUrl = 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/';

  it('gives API_URL the URL the local API is served at, where the template sets it', () => {
    const env = lambdaEnvironment(inputs({ API_URL: stageUrl, TABLE_NAME: 't' }, 'http://127.0.0.1:3000'));
    expect(env.API_URL).toBe('http://127.0.0.1:3000');
    expect(env.TABLE_NAME).toBe('t');
  });

  it('gives no API_URL to a function whose template has none, as on AWS', () => {
    expect(lambdaEnvironment(inputs({ TABLE_NAME: 't' }, 'http://127.0.0.1:3000')).API_URL).toBeUndefined();
  });

  it('refuses to start a function that links to the API before the API is served', () => {
    expect(() => lambdaEnvironment(inputs({ API_URL: stageUrl }))).toThrow(/API_URL.*not served yet/);
  });
});
