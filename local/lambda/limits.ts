/**
 * Lambda's numbers and messages, as AWS documents and reports them (sources in each comment), so that what
 * fails on AWS fails here the same way.
 */

/**
 * A synchronous (RequestResponse) invocation's request: 6 MB, in bytes of its JSON. Lambda's answer beyond
 * it: RequestEntityTooLargeException "Request must be smaller than 6291456 bytes for the InvokeFunction
 * operation" (Invoke API reference; the message as the SDKs surface it).
 */
export const MAX_SYNC_REQUEST_BYTES = 6_291_456;

/**
 * A synchronous invocation's response: beyond it the invocation fails with Function.ResponseSizeTooLarge,
 * "Response payload size exceeded maximum allowed payload size (6291556 bytes)." (as Lambda reports it).
 */
export const MAX_SYNC_RESPONSE_BYTES = 6_291_556;

/**
 * An asynchronous (Event) invocation's request: 1 MB since October 2025 (it was 256 KB; Invoke API reference:
 * "For asynchronous invocations, the maximum payload size is 1 MB"). Counted as 1 MiB; beyond it Lambda
 * answers "<n> byte payload is too large for the Event invocation type (limit <limit> bytes)".
 */
export const MAX_ASYNC_REQUEST_BYTES = 1_048_576;

/**
 * The Init phase of an on-demand environment: 10 s. Past it, or when init fails, Lambda runs Init again at
 * the invocation, within the function's timeout ("suppressed init"; Lambda execution environment lifecycle,
 * and Troubleshoot invocation issues: Sandbox.Timedout during Init).
 */
export const INIT_PHASE_TIMEOUT_MS = 10_000;

/** The runtimes this local runtime runs: Lambda's managed Node.js runtimes. */
export const NODEJS_RUNTIME = /^nodejs\d+\.x$/;

/** An error as the invocation's caller receives it (the Runtime API's error body). */
export interface FunctionErrorBody {
  errorType: string;
  errorMessage: string;
  trace?: string[];
}

export function requestTooLargeMessage(invocationType: 'RequestResponse' | 'Event', bytes: number): string {
  return invocationType === 'Event'
    ? `${bytes} byte payload is too large for the Event invocation type (limit ${MAX_ASYNC_REQUEST_BYTES} bytes)`
    : `Request must be smaller than ${MAX_SYNC_REQUEST_BYTES} bytes for the InvokeFunction operation`;
}

/** Reserved concurrency used up: TooManyRequestsException, Reason ReservedFunctionConcurrentInvocationLimitExceeded. */
export const THROTTLED_MESSAGE = 'Rate Exceeded.';

export function functionNotFoundMessage(arn: string): string {
  return `Function not found: ${arn}`;
}

export function responseTooLargeError(): FunctionErrorBody {
  return {
    errorType: 'Function.ResponseSizeTooLarge',
    errorMessage: `Response payload size exceeded maximum allowed payload size (${MAX_SYNC_RESPONSE_BYTES} bytes).`,
  };
}

/** The function's timeout passed: Lambda stops the environment and reports Sandbox.Timedout. */
export function timeoutError(requestId: string, timeoutSeconds: number): FunctionErrorBody {
  return {
    errorType: 'Sandbox.Timedout',
    errorMessage: `RequestId: ${requestId} Error: Task timed out after ${timeoutSeconds.toFixed(2)} seconds`,
  };
}

/**
 * The runtime process ended without answering: Runtime.ExitError, or Runtime.OutOfMemory when the
 * environment ran out of memory, with the exit described as Lambda's Go supervisor does.
 */
export function exitError(
  requestId: string,
  exit: { code: number | null; signal: NodeJS.Signals | null },
  outOfMemory: boolean,
): FunctionErrorBody {
  const reason =
    exit.signal !== null
      ? `Runtime exited with error: signal: ${signalDescription(exit.signal)}`
      : exit.code === 0
        ? 'Runtime exited without providing a reason'
        : `Runtime exited with error: exit status ${exit.code}`;
  return {
    errorType: outOfMemory ? 'Runtime.OutOfMemory' : 'Runtime.ExitError',
    errorMessage: `RequestId: ${requestId} Error: ${reason}`,
  };
}

function signalDescription(signal: NodeJS.Signals): string {
  switch (signal) {
    case 'SIGKILL':
      return 'killed';
    case 'SIGABRT':
      return 'aborted (core dumped)';
    case 'SIGSEGV':
      return 'segmentation fault (core dumped)';
    case 'SIGTERM':
      return 'terminated';
    default:
      return signal.toLowerCase();
  }
}
