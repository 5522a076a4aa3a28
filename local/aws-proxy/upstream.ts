/** Talking to the emulators behind the proxy: keep-alive connections, buffered or streamed bodies. */
import { randomUUID } from 'node:crypto';
import {
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import type { Readable } from 'node:stream';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** Reads a whole request or response body (the JSON services' bodies are small: MBs at most). */
export function readBody(stream: Readable, limitBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        stream.destroy();
        reject(new BodyTooLargeError(`body larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

/** Headers that describe one connection, not the message: never copied from one hop to the next. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

export function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) copy[name] = value;
  }
  return copy;
}

export class Upstream {
  readonly origin: URL;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 128 });

  constructor(endpoint: string) {
    this.origin = new URL(endpoint);
  }

  /**
   * Sends a request upstream. With a Buffer body the content length is set from it; with a stream the
   * caller's framing headers (content-length or chunked) are kept and the stream is piped by the caller
   * through the returned request's `write`/`end` (see `pipe` below).
   */
  send(
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body?: Buffer,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const outgoing = this.open(method, path, headers, resolve, reject);
      if (body !== undefined) outgoing.setHeader('content-length', body.length);
      outgoing.end(body);
    });
  }

  /** Like send, for a streamed body: returns the open request and the response to come. */
  open(
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    onResponse: (response: IncomingMessage) => void,
    onError: (error: Error) => void,
  ) {
    const outgoing = request({
      host: this.origin.hostname,
      port: this.origin.port,
      method,
      path,
      headers,
      agent: this.agent,
    });
    outgoing.once('response', onResponse);
    outgoing.once('error', onError);
    return outgoing;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Relays an upstream response unchanged. */
export function relay(upstream: IncomingMessage, res: ServerResponse): void {
  res.writeHead(upstream.statusCode ?? 502, endToEndHeaders(upstream.headers));
  upstream.pipe(res);
}

/** Sends a body the proxy rewrote, with the upstream's status and headers and a fresh length. */
export function replyWith(
  res: ServerResponse,
  upstream: IncomingMessage,
  body: Buffer | string,
  overrides: Record<string, string | undefined> = {},
): void {
  const headers: Record<string, string | string[]> = endToEndHeaders(upstream.headers);
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(upstream.statusCode ?? 502, headers);
  res.end(body);
}

/** A JSON (AWS JSON 1.0) answer the proxy makes itself. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}
