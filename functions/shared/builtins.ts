import { createRequire } from 'node:module';

/**
 * Node built-ins that no cold start imports as ES modules: Node builds an ES module's view of a built-in from
 * every export's value, and some exports are getters that load more. node:http's WebSocket, CloseEvent and
 * MessageEvent load undici (imported, node:http cost the webhook worker's cold start about 45 ms of CPU on
 * Node 22; required, about 5); node:net's BlockList and SocketAddress load two more built-ins (about 1 ms of
 * every API function, which all carry the sign-in address check). Each is required on first use instead, so
 * only the paths that use it pay (test/cdk/bundling.test.ts checks the bundles for such imports).
 */
const requireBuiltin = createRequire(import.meta.url);

let http: typeof import('node:http') | undefined;
let net: typeof import('node:net') | undefined;

/** node:http: the webhook worker's POST to an `http:` URL. */
export const nodeHttp = (): typeof import('node:http') => {
  http ??= requireBuiltin('node:http') as typeof import('node:http');
  return http;
};

/** node:net: address checks (sign-in failures, the webhook SSRF guard). */
export const nodeNet = (): typeof import('node:net') => {
  net ??= requireBuiltin('node:net') as typeof import('node:net');
  return net;
};
