import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from '../local/loopback-server';

/**
 * The webhook receiver of the bench (bench/webhook-receiver.ts) and of the tests (test/support/webhook-receiver.ts):
 * a plain node:http server, with nothing that needs vitest, so the bench can run it in its own process.
 */

/** One request as it arrived, its body read whole. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body: a signature covers exactly these bytes. */
  body: string;
}

/** Answers the request with `status` and a short text body. */
export type Respond = (status: number, text: string) => void;

export interface HttpReceiver {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Closes every connection, idle keep-alive ones included, and the server. */
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (port 0, keep-alive connections kept for 30 s). `onRequest` gets each request
 * once its body has arrived; a request it never answers stays open until the sender gives up or close().
 */
export async function startHttpReceiver(
  onRequest: (request: ReceivedRequest, respond: Respond) => void,
): Promise<HttpReceiver> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      onRequest(request, (status, text) => {
        res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  const { url, port, close } = await listenOnLoopback(server);
  return { origin: url, port, close };
}

/**
 * An independent check of `X-Signature: t=<ms>,v1=<hex>[,v1=<hex>]` (not the service's verifySignature): one
 * v1 is HMAC-SHA256 of "<t>.<raw body>" with the secret (a rotation adds one), and t within five minutes of now.
 */
export function independentlyVerified(secret: string, signature: string, rawBody: string): boolean {
  const match = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/.exec(signature);
  if (!match) return false;
  const [, t, v1s] = match as unknown as [string, string, string];
  if (Math.abs(Date.now() - Number(t)) > 5 * 60_000) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest();
  return v1s
    .split(',v1=')
    .slice(1)
    .some((v1) => timingSafeEqual(Buffer.from(v1, 'hex'), expected));
}
