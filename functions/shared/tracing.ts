import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';

/**
 * The X-Ray SDK side of observability.ts, in a module of its own: observability.ts imports it only where the
 * bundle carries the SDK (XRAY_SDK_BUNDLED, lib/bundling.ts) and the environment asks for tracing, so a
 * function built without it neither contains nor parses the Tracer, the X-Ray SDK, cls-hooked or semver.
 *
 * Handler responses are not recorded (they carry login tokens and webhook secrets), and the global
 * http/https patch is off: it would add X-Amzn-Trace-Id to requests to customers' webhook receivers.
 */
export function createTracing(serviceName: string) {
  const tracer = new Tracer({ serviceName, captureHTTPsRequests: false });
  return { tracer, middleware: captureLambdaHandler(tracer, { captureResponse: false }) };
}
