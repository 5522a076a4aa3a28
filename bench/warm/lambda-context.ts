import type { Context } from 'aws-lambda';

/**
 * What the in-process measurements (bench/handler-warm.ts) share: the handler's signature and the context Lambda
 * passes an invocation. These modules run in the measuring process, bundled, beside the function's own bundle.
 */

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** Each comparison's module exports this: the two paths it times, built once before the warm-up. */
export type WarmPaths<Input> = (
  handler: LambdaHandler,
  input: Input,
) => Promise<{ handler: () => Promise<void>; raw: () => Promise<void> }>;

/** The context of the `invocation`-th invocation, as Lambda gives it (the function's name from its environment). */
export function lambdaContext(invocation: number, remainingMs: number): Context {
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'bench';
  return {
    awsRequestId: `bench-invocation-${invocation}`,
    functionName,
    functionVersion: '$LATEST',
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '128',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
