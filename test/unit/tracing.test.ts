import { spawn } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The Tracer as Lambda runs it, in a process of its own (the environment decides at import): a real
 * endpoint handler with the X-Ray SDK in its Lambda mode, sending to a UDP socket that stands in for the
 * X-Ray daemon. Elsewhere (the local runtime, tests, POWERTOOLS_TRACE_ENABLED=false) it is never loaded.
 */
const SECRET = 'drs_probe_secret_key_value';
const TRACE_ID = '1-5759e988-bd862e3fe1be46a994272793';

let daemon: Socket;
const received: string[] = [];

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message) => received.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
});

afterAll(() => daemon?.close());

async function probe(env: Record<string, string>) {
  const { TABLE_NAME = 't', AWS_REGION = 'us-east-1' } = process.env;
  const child = spawn('node_modules/.bin/tsx', ['test/support/tracing-probe.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      TABLE_NAME,
      AWS_REGION,
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_SERVICE_NAME: 'delivery-route-service',
      POWERTOOLS_METRICS_DISABLED: 'true',
      PROBE_SECRET: SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(code, output).toBe(0);
  const line = output.split('\n').find((candidate) => candidate.startsWith('PROBE '));
  expect(line, output).toBeDefined();
  return JSON.parse((line as string).slice('PROBE '.length)) as {
    tracing: boolean;
    xrayLoaded: boolean;
    statusCode: number;
  };
}

/** The subsegments the daemon got: each datagram is a JSON header line, then the document. */
const documents = () =>
  received.map(
    (datagram) => JSON.parse(datagram.slice(datagram.indexOf('\n') + 1)) as Record<string, unknown>,
  );

describe('tracing', () => {
  it('on Lambda, traces the handler with its account and operation, never the response or a key', async () => {
    const { port } = daemon.address() as AddressInfo;
    const result = await probe({
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      LAMBDA_TASK_ROOT: '/var/task',
      _HANDLER: 'index.handler',
      _X_AMZN_TRACE_ID: `Root=${TRACE_ID};Parent=53995c3f42cd8ad8;Sampled=1`,
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}`,
    });
    expect(result).toEqual({ tracing: true, xrayLoaded: true, statusCode: 200 });
    await expect.poll(() => documents().length).toBeGreaterThan(0);
    const handlerSegment = documents().find((document) => document.name === '## index.handler');
    expect(handlerSegment).toMatchObject({
      trace_id: TRACE_ID,
      annotations: {
        Service: 'delivery-route-service',
        account_id: 'acc_probe',
        operation: 'getColumnDefinitions',
      },
    });
    // captureResponse is off: responses carry login tokens and webhook secrets.
    expect(JSON.stringify(handlerSegment)).not.toContain('response');
    expect(received.join('\n')).not.toContain(SECRET);
  });

  it('is never loaded where it is off: outside Lambda, or with POWERTOOLS_TRACE_ENABLED=false', async () => {
    const before = received.length;
    expect(await probe({})).toEqual({ tracing: false, xrayLoaded: false, statusCode: 200 });
    expect(
      await probe({ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x', POWERTOOLS_TRACE_ENABLED: 'false' }),
    ).toEqual({ tracing: false, xrayLoaded: false, statusCode: 200 });
    expect(received.length).toBe(before);
  });
});
