import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/cloud/model';
import {
  MAX_ASYNC_REQUEST_BYTES,
  MAX_SYNC_REQUEST_BYTES,
  MAX_SYNC_RESPONSE_BYTES,
} from '../../local/lambda/limits';
import { proxyGetEvent } from '../support/lambda-fixtures';
import {
  eventOfSize,
  FUNCTIONS,
  failed,
  linesOf,
  logs,
  pidOf,
  processExists,
  runtime,
  start,
  succeeded,
  useLambdaRuntime,
} from '../support/lambda-runtime';

/**
 * The local Lambda runtime enforces Lambda's payload limits and reports errors and logs as the nodejs runtime
 * does; a real service handler answers an API Gateway event (the fixtures: test/support/lambda-runtime.ts).
 */
useLambdaRuntime();

describe('limits', () => {
  it("ends an invocation at the function's timeout and discards its environment", async () => {
    const fn = FUNCTIONS.shortTimeout;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'sleep', ms: 5000 }));
    expect(result).toMatchObject({
      errorType: 'Sandbox.Timedout',
      errorMessage: `RequestId: ${result.requestId} Error: Task timed out after 1.00 seconds`,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(990);
    expect(result.durationMs).toBeLessThan(2000);
    expect(linesOf(result.requestId, 'platform')).toEqual([
      `START RequestId: ${result.requestId} Version: $LATEST`,
      expect.stringMatching(new RegExp(`Z ${result.requestId} Task timed out after 1.00 seconds$`)),
      `END RequestId: ${result.requestId}`,
      expect.stringMatching(/\tStatus: timeout\tError Type: Sandbox.Timedout$/),
    ]);
    expect(processExists(pid)).toBe(false);
    const next = succeeded(await runtime.invoke(fn.name, { action: 'count' }));
    expect(next.coldStart).toBe(true);
  });

  it('answers the caller at its own deadline while the function runs on to completion in its environment', async () => {
    const fn = FUNCTIONS.behaviours;
    const pid = await pidOf(fn.name);
    const result = await runtime.invoke(
      fn.name,
      { action: 'sleep', ms: 400 },
      { deadline: Date.now() + 100 },
    );
    expect(result.kind).toBe('callerTimeout');
    expect(runtime.stats(fn.name).busy).toBe(1);
    await expect.poll(() => runtime.stats(fn.name).busy, { timeout: 5000 }).toBe(0);
    expect(await pidOf(fn.name)).toBe(pid);
  });

  it('kills an environment whose memory goes past the memory size, off or on the V8 heap', async () => {
    const fn = FUNCTIONS.memory;
    for (const action of ['buffers', 'heap']) {
      const pid = await pidOf(fn.name);
      const result = failed(await runtime.invoke(fn.name, { action, megabytes: 200 }));
      expect(result.errorType).toBe('Runtime.OutOfMemory');
      expect(result.errorMessage).toMatch(
        new RegExp(`^RequestId: ${result.requestId} Error: Runtime exited with error: signal: `),
      );
      expect(processExists(pid)).toBe(false);
      expect(succeeded(await runtime.invoke(fn.name, { action: 'count' })).coldStart).toBe(true);
    }
    // Killed while it runs, not when it answers: long before its 3 s timeout.
    const held = failed(await runtime.invoke(fn.name, { action: 'buffers', megabytes: 200, ms: 60_000 }));
    expect(held.errorType).toBe('Runtime.OutOfMemory');
    // Within the memory size, the same work succeeds.
    succeeded(await runtime.invoke(fn.name, { action: 'buffers', megabytes: 20 }));
  }, 120_000);

  it('judges a cold start by the memory of its own process, not of the process that started it', async () => {
    // Linux carries getrusage's maxRSS across exec from the forking process: a runtime process larger than a
    // function's memory size (here this one, with 200 MB more) made each cold start of the function look out of
    // memory, at its first report.
    const ballast = Array.from({ length: 200 }, () => Buffer.alloc(1 << 20, 1));
    const fresh = start();
    const result = succeeded(await fresh.invoke(FUNCTIONS.memory.name, { action: 'count' }));
    expect(result.coldStart).toBe(true);
    expect(ballast).toHaveLength(200);
  });

  it('takes a synchronous request of up to 6 MB of JSON, counted in bytes', async () => {
    const fn = FUNCTIONS.limits;
    const before = runtime.stats(fn.name).invocations;
    const atLimit = eventOfSize(MAX_SYNC_REQUEST_BYTES);
    expect(succeeded(await runtime.invoke(fn.name, atLimit)).payload).toEqual(atLimit);

    expect(await runtime.invoke(fn.name, eventOfSize(MAX_SYNC_REQUEST_BYTES + 1))).toEqual({
      kind: 'invokeError',
      errorType: 'RequestEntityTooLargeException',
      errorMessage: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
    });
    // Two bytes a character: fewer characters than the limit, more bytes.
    const multibyte = await runtime.invoke(fn.name, eventOfSize(MAX_SYNC_REQUEST_BYTES + 2, 'é'));
    expect(multibyte.kind).toBe('invokeError');
    expect(runtime.stats(fn.name).invocations).toBe(before + 1);
  });

  it('returns a response of up to 6291556 bytes; a larger one fails the invocation and its environment', async () => {
    const fn = FUNCTIONS.limits;
    const quotes = 2;
    const atLimit = succeeded(
      await runtime.invoke(fn.name, { action: 'respond', bytes: MAX_SYNC_RESPONSE_BYTES - quotes }),
    );
    expect((atLimit.payload as string).length).toBe(MAX_SYNC_RESPONSE_BYTES - quotes);

    const pid = await pidOf(fn.name);
    const tooLarge = failed(
      await runtime.invoke(fn.name, { action: 'respond', bytes: MAX_SYNC_RESPONSE_BYTES - quotes + 1 }),
    );
    expect(tooLarge).toMatchObject({
      errorType: 'Function.ResponseSizeTooLarge',
      errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
    });
    // The environment is killed after the caller has its answer.
    await expect.poll(() => processExists(pid), { timeout: 5000 }).toBe(false);
  });

  it('accepts an Event invocation of up to 1 MB at once and runs it in the background', async () => {
    const fn = FUNCTIONS.limits;
    const event = eventOfSize(300 * 1024);
    const accepted = await runtime.invoke(fn.name, event, { invocationType: 'Event' });
    if (accepted.kind !== 'accepted') throw new Error(JSON.stringify(accepted));
    await expect
      .poll(() => linesOf(accepted.requestId, 'platform').some((line) => line.startsWith('REPORT')), {
        timeout: 5000,
      })
      .toBe(true);

    expect(
      await runtime.invoke(fn.name, eventOfSize(MAX_ASYNC_REQUEST_BYTES + 1), { invocationType: 'Event' }),
    ).toEqual({
      kind: 'invokeError',
      errorType: 'RequestEntityTooLargeException',
      errorMessage: '1048577 byte payload is too large for the Event invocation type (limit 1048576 bytes)',
    });
  });

  it('answers ResourceNotFoundException for a function that does not exist', async () => {
    expect(await runtime.invoke('no-such-function', {})).toEqual({
      kind: 'invokeError',
      errorType: 'ResourceNotFoundException',
      errorMessage: `Function not found: arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:no-such-function`,
    });
  });
});

describe('errors as the nodejs runtime reports them', () => {
  it("reports a handler's error with its name and logs it; the environment stays", async () => {
    const fn = FUNCTIONS.crashes;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'throw' }));
    expect(result).toMatchObject({ errorType: 'TypeError', errorMessage: 'bad input', coldStart: false });
    const [errorLine] = linesOf(result.requestId, 'stdout');
    expect(errorLine).toMatch(
      new RegExp(
        `^\\S+Z\\t${result.requestId}\\tERROR\\tInvoke Error \\t\\{"errorType":"TypeError","errorMessage":"bad input","stack":\\["TypeError: bad input",`,
      ),
    );
    // The source map maps the bundle's frames back to the fixture's source.
    expect(errorLine).toContain('test/fixtures/lambda/behaviours.ts');
    expect(await pidOf(fn.name)).toBe(pid);
  });

  it('fails the invocation and ends the environment on a rejection nothing handles', async () => {
    const fn = FUNCTIONS.crashes;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'stray rejection' }));
    expect(result).toMatchObject({
      errorType: 'Runtime.UnhandledPromiseRejection',
      errorMessage: 'Error: nobody awaits this',
    });
    expect(linesOf(result.requestId, 'stdout')[0]).toMatch(
      /\tERROR\tUnhandled Promise Rejection \t\{"errorType":"Runtime.UnhandledPromiseRejection"/,
    );
    expect(processExists(pid)).toBe(false);
    expect(succeeded(await runtime.invoke(fn.name, { action: 'count' })).coldStart).toBe(true);
  });

  it('ends an async handler whose promise can never settle as the runtime does, keeping the environment', async () => {
    const fn = FUNCTIONS.crashes;
    const pid = await pidOf(fn.name);
    const result = failed(await runtime.invoke(fn.name, { action: 'never settles' }));
    expect(result.errorType).toBe('Runtime.NodeJsExit');
    expect(await pidOf(fn.name)).toBe(pid);
  });

  it('fails a response that JSON cannot represent', async () => {
    const result = failed(await runtime.invoke(FUNCTIONS.crashes.name, { action: 'unserializable' }));
    expect(result).toMatchObject({ errorType: 'Error', errorMessage: 'Unable to stringify response body' });
  });
});

describe('logs', () => {
  it('delivers every line whole, tagged with its function and request, with the platform lines around it', async () => {
    const fn = FUNCTIONS.logs;
    const cold = succeeded(await runtime.invoke(fn.name, { action: 'log' }));
    expect(linesOf(cold.requestId, 'stdout')).toEqual([
      expect.stringMatching(
        new RegExp(`^\\S+Z\\t${cold.requestId}\\tINFO\\tconsole line \\{ multi: 'line\\\\nobject' \\}$`),
      ),
      // The runtime's console keeps one call on one line: newlines become carriage returns.
      expect.stringMatching(/\tWARN\tfirst\rsecond$/),
      'a partial line, finished',
      'no newline at the end',
    ]);
    expect(linesOf(cold.requestId, 'stderr')).toEqual(['to stderr']);
    const platform = linesOf(cold.requestId, 'platform');
    expect(platform[0]).toBe(`START RequestId: ${cold.requestId} Version: $LATEST`);
    expect(platform[1]).toBe(`END RequestId: ${cold.requestId}`);
    expect(platform[2]).toMatch(
      new RegExp(
        `^REPORT RequestId: ${cold.requestId}\\tDuration: [\\d.]+ ms\\tBilled Duration: \\d+ ms\\tMemory Size: 128 MB\\tMax Memory Used: \\d+ MB\\tInit Duration: [\\d.]+ ms$`,
      ),
    );
    // The cold start shows before its invocation; a warm invocation reports no init.
    const initStart = logs.findIndex(
      (record) => record.functionName === fn.name && record.line.startsWith('INIT_START'),
    );
    expect(initStart).toBeLessThan(logs.findIndex((record) => record.line === platform[0]));
    const warm = succeeded(await runtime.invoke(fn.name, { action: 'log' }));
    expect(linesOf(warm.requestId, 'platform')[2]).not.toContain('Init Duration');
    expect(logs.every((record) => record.functionName)).toBe(true);
  });

  it("never mixes two environments' lines", async () => {
    const fn = FUNCTIONS.logs;
    const lines = (tag: string) => Array.from({ length: 400 }, (_, i) => `${tag}-${i}-${'.'.repeat(200)}`);
    const [a, b] = (
      await Promise.all([
        runtime.invoke(fn.name, { action: 'log', lines: lines('A') }),
        runtime.invoke(fn.name, { action: 'log', lines: lines('B') }),
      ])
    ).map(succeeded);
    for (const [result, tag] of [
      [a, 'A'],
      [b, 'B'],
    ] as const)
      expect(linesOf(result?.requestId ?? '', 'stdout').filter((line) => /^[AB]-/.test(line))).toEqual(
        lines(tag),
      );
  });

  it('tags the lines of an invocation that writes to one stream only, and of none that writes nothing', async () => {
    const fn = FUNCTIONS.logs;
    const from = logs.length;
    const silent = succeeded(await runtime.invoke(fn.name, { action: 'count' }));
    const toStderr = succeeded(
      await runtime.invoke(fn.name, { action: 'log to stderr', line: 'only stderr' }),
    );
    const both = succeeded(await runtime.invoke(fn.name, { action: 'log' }));
    expect([...linesOf(silent.requestId, 'stdout'), ...linesOf(silent.requestId, 'stderr')]).toEqual([]);
    expect(linesOf(toStderr.requestId, 'stderr')).toEqual(['only stderr']);
    expect(linesOf(toStderr.requestId, 'stdout')).toEqual([]);
    expect(linesOf(both.requestId, 'stderr')).toEqual(['to stderr']);
    expect(linesOf(both.requestId, 'stdout')).toHaveLength(4);
    const untagged = logs.slice(from).filter((record) => record.stream !== 'platform' && !record.requestId);
    expect(untagged).toEqual([]);
  });
});

describe('a service handler', () => {
  it('answers an API Gateway proxy event from its production bundle', async () => {
    const event = proxyGetEvent(
      '/openapi.json',
      { Accept: 'application/json' },
      {
        accountId: LOCAL_ACCOUNT_ID,
        apiId: 'localapi',
        protocol: 'HTTP/1.1',
        requestId: 'gateway-request',
        requestTimeEpoch: Date.now(),
      },
    ) as unknown as APIGatewayProxyEvent;
    const result = succeeded(await runtime.invoke(FUNCTIONS.openapi.name, event));
    const response = result.payload as { statusCode: number; headers: Record<string, string>; body: string };
    expect(response.statusCode).toBe(200);
    expect(response.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(response.body)).toMatchObject({ openapi: '3.1.0' });
  });
});
