import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { Context } from 'aws-lambda';
import { METRICS_NAMESPACE, SERVICE_NAME } from './service-identity';

/**
 * Logs, metrics and traces of every function: one Powertools Logger, Metrics and Tracer per process,
 * created at cold start, and `observed()` to put their middleware on a handler.
 *
 * Configured by the environment, never by where the code runs:
 * - POWERTOOLS_SERVICE_NAME: the `service` of every log line, the metrics' `service` dimension and the
 *   traces' service annotation;
 * - POWERTOOLS_LOG_LEVEL (default INFO);
 * - POWERTOOLS_METRICS_NAMESPACE (default DeliveryRouteService); POWERTOOLS_METRICS_DISABLED=true keeps
 *   the EMF lines off stdout (the local runtime sets it);
 * - tracing (the X-Ray SDK's subsegments and annotations) is on only inside Lambda (AWS_EXECUTION_ENV set),
 *   unless POWERTOOLS_TRACE_ENABLED=false, and only in functions whose bundle carries the SDK.
 *
 * Never log API keys, login tokens, webhook secrets, Authorization headers or request bodies: the event is
 * never logged (`logEvent: false`, whatever POWERTOOLS_LOGGER_LOG_EVENT says), and handlers log ids only.
 */

const serviceName = process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME;

export const logger = new Logger({ serviceName });

/**
 * Powertools warns on every flush without application metrics; most invocations (every read) have none,
 * so that one goes to DEBUG. Its other warnings (an invalid metric or dimension) stay warnings.
 */
const metricsLogger = {
  debug: (message: unknown) => logger.debug(String(message)),
  info: (message: unknown) => logger.info(String(message)),
  warn: (message: unknown) =>
    String(message).startsWith('No application metrics to publish')
      ? logger.debug(String(message))
      : logger.warn(String(message)),
  error: (message: unknown) => logger.error(String(message)),
};

export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
  serviceName,
  logger: metricsLogger,
});

/**
 * Powertools' own rule (Tracer#setTracingEnabled): off when POWERTOOLS_TRACE_ENABLED is 'false', outside
 * Lambda (no AWS_EXECUTION_ENV) and under SAM local or the Amplify mock.
 */
function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === 'false') return false;
  const executionEnv = env.AWS_EXECUTION_ENV ?? '';
  return executionEnv !== '' && executionEnv !== 'AWS_Lambda_amplify-mock' && !env.AWS_SAM_LOCAL;
}

/**
 * Whether this code may load the X-Ray SDK: the bundle's build-time constant (lib/bundling.ts, chosen per
 * function by the `xraySdkTracing` context value), or yes when running unbundled (tsx, tests). Where a
 * bundle is built with `false`, the import below is dead code and esbuild leaves the SDK out of it.
 */
declare const XRAY_SDK_BUNDLED: boolean | undefined;

/**
 * The Tracer and its middleware, or undefined where tracing is off or the bundle has no X-Ray SDK. Evaluating
 * the SDK costs 20-35 ms of each cold start (the `bundles` bench: module init with and without it) and its
 * async hook (cls-hooked) slows every promise of the process, so it is loaded only where it traces: not
 * locally, not with POWERTOOLS_TRACE_ENABLED=false, and not in functions bundled without it (every function by
 * default), whose traces still get the segments Lambda's active tracing records itself (initialisation,
 * invocation, overhead) and API Gateway's. On Lambda it is loaded at init rather than on the first
 * invocation: loading it later would move the same milliseconds into the first request, not save them.
 */
// The constant is tested right here (not through a variable) so that esbuild folds the condition and drops
// the import: a module with a top-level await is wrapped, and its variables are not inlined.
const tracing =
  (typeof XRAY_SDK_BUNDLED === 'undefined' || XRAY_SDK_BUNDLED) && tracingWanted(process.env)
    ? (await import('./tracing')).createTracing(serviceName)
    : undefined;

export const tracer: Tracer | undefined = tracing?.tracer;

/**
 * An SDK client as the functions use it: each of its calls traced as a subsegment (where tracing is on), and
 * without the SDK's logger middleware. That step runs the sensitive-field filter over every call's input and
 * output to hand them to `logger.info`, which the SDK's default no-op logger has: every answer was walked once
 * more, field by field, and dropped (a page of 1,000 invoice rows, about 4 ms of CPU). The functions log their
 * calls themselves, and never give the SDK a logger.
 */
export function traceAwsClient<T extends { middlewareStack: { remove(name: string): boolean } }>(
  client: T,
): T {
  client.middlewareStack.remove('loggerMiddleware');
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/**
 * The business metrics, all counts, with the `service` dimension only: per-account dimensions would make
 * one CloudWatch metric per account (cost, cardinality); the logs carry account_id for that.
 */
export type BusinessMetric =
  /** POST /invoiced-routes accepted an import (202). */
  | 'ImportsAccepted'
  /** POST /invoiced-routes/uploads handed out an upload link (202). */
  | 'ImportUploadsStarted'
  /** The import worker finished an import as SUCCEEDED. */
  | 'ImportsSucceeded'
  /** The import worker finished an import as FAILED (a taken id, a driver gone, its last attempt failing). */
  | 'ImportsFailed'
  /** A webhook POST answered 2xx in time. */
  | 'WebhookDeliveriesSucceeded'
  /** A webhook POST failed (status, timeout, connection, refused target): one per failed attempt. */
  | 'WebhookDeliveriesFailed'
  /** Rows written to the CSV files of a finished analytics export. */
  | 'AnalyticsRowsExported'
  /** The proof check found an uploaded proof as declared: AVAILABLE. */
  | 'ProofsAvailable'
  /** The proof check refused an uploaded proof (size or first bytes not as declared): REJECTED. */
  | 'ProofsRejected';

/** Adds to a count, flushed as EMF at the end of the invocation (by `observed()`'s logMetrics). */
export function countMetric(name: BusinessMetric, count = 1): void {
  metrics.addMetric(name, MetricUnit.Count, count);
}

/** Keys appended to every log line of an invocation (cleared when it ends). */
export interface LogKeys {
  request_id?: string;
  operation?: string;
  account_id?: string;
  dc_id?: string;
  driver_id?: string;
  [key: string]: string | number | undefined;
}

/** Appends the keys that have a value to the invocation's log lines, and the ids to its trace. */
export function appendLogKeys(keys: LogKeys): void {
  const present = Object.fromEntries(Object.entries(keys).filter(([, value]) => value !== undefined));
  logger.appendKeys(present);
  if (!tracer) return;
  // Annotations are indexed: traces can be searched by account and operation.
  for (const key of ['account_id', 'operation'] as const) {
    const value = present[key];
    if (value !== undefined) tracer.putAnnotation(key, value);
  }
}

/** A Lambda handler as the runtime calls it (the service's handlers never use the callback form). */
export type LambdaHandler<TEvent, TResult> = (event: TEvent, context: Context) => Promise<TResult>;

/** Powertools' middleware (logger, metrics, tracer) share one shape: what runs before, after and on an error. */
type Middleware = ReturnType<typeof injectLambdaContext>;
type MiddlewareRequest = Parameters<NonNullable<Middleware['before']>>[0];

/**
 * Puts the observability middleware on a handler: the trace segment (opened first, closed last), the
 * Lambda context and cleared keys on every log line, and the metrics flushed when the invocation ends.
 *
 * Powertools' own middleware objects, run in middy's order (before in order, after and onError in reverse),
 * without middy itself: the service uses no other middleware, and @middy/core loads Node's stream modules
 * (node:stream/web among them) at every cold start, about 5% of the least function's module init (the
 * `bundles` bench). Unlike middy, nothing ends a handler early before Lambda's timeout: a function that times
 * out is stopped by Lambda and its invocation's metrics are not flushed.
 */
export function observed<TEvent, TResult>(
  handler: LambdaHandler<TEvent, TResult>,
): LambdaHandler<TEvent, TResult> {
  const middleware: Middleware[] = [
    ...(tracing ? [tracing.middleware] : []),
    injectLambdaContext(logger, { resetKeys: true, logEvent: false }),
    logMetrics(metrics, { throwOnEmptyMetrics: false }),
  ];
  const unwinding = [...middleware].reverse();
  return async (event, context) => {
    const request: MiddlewareRequest = {
      event,
      context,
      response: undefined,
      error: undefined,
      internal: {},
    };
    try {
      for (const { before } of middleware) await before?.(request);
      const response = await handler(event, context);
      request.response = response;
      for (const { after } of unwinding) await after?.(request);
      return response;
    } catch (error) {
      request.response = undefined;
      request.error = error as Error;
      for (const { onError } of unwinding) await onError?.(request);
      throw error;
    }
  };
}
