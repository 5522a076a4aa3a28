import { Agent, type RequestOptions, request } from 'node:http';

export interface JsonResponse {
  status: number;
  body: unknown;
}

/** A keep-alive HTTP client for the local API: one socket per concurrent request, reused between requests. */
export class ApiClient {
  readonly #agent: Agent;
  readonly #base: URL;
  readonly #headers: Record<string, string>;

  constructor(baseUrl: string, apiKey: string, maxSockets: number) {
    this.#base = new URL(baseUrl);
    this.#agent = new Agent({ keepAlive: true, maxSockets });
    this.#headers = { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' };
  }

  get(path: string): Promise<JsonResponse> {
    return this.#send('GET', path);
  }

  /**
   * `body` is sent as it is: serialize it before timing the request. `bearer` replaces the client's key
   * for this request (a driver's login token on the driver app's paths).
   */
  post(path: string, body: string | Buffer, bearer?: string): Promise<JsonResponse> {
    return this.#send('POST', path, typeof body === 'string' ? Buffer.from(body, 'utf8') : body, bearer);
  }

  patch(path: string, body: string): Promise<JsonResponse> {
    return this.#send('PATCH', path, Buffer.from(body, 'utf8'));
  }

  put(path: string, body: string): Promise<JsonResponse> {
    return this.#send('PUT', path, Buffer.from(body, 'utf8'));
  }

  delete(path: string): Promise<JsonResponse> {
    return this.#send('DELETE', path);
  }

  #send(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    body?: Buffer,
    bearer?: string,
  ): Promise<JsonResponse> {
    const headers = bearer ? { ...this.#headers, Authorization: `Bearer ${bearer}` } : this.#headers;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.#base.hostname,
          port: this.#base.port,
          path,
          method,
          agent: this.#agent,
          headers: body
            ? { ...headers, 'Content-Type': 'application/json', 'Content-Length': body.length }
            : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
            } catch {
              reject(new Error(`HTTP ${res.statusCode}: body is not JSON: ${text.slice(0, 200)}`));
            }
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/**
 * POSTs `body` to `url` as a webhook delivery is sent (its Content-Length set) and reads the whole answer;
 * throws unless the receiver answered 200.
 */
export function postExpecting200(url: URL | string, options: RequestOptions, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ...options,
        method: 'POST',
        headers: { ...options.headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume();
        res.on('error', reject);
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`receiver answered ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Records an answer that was not the status expected as `what: status body` in `errors`; returns the answer. */
export const expectingStatus =
  (errors: string[]) =>
  (what: string, response: JsonResponse, status = 200): JsonResponse => {
    if (response.status !== status)
      errors.push(`${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
    return response;
  };

export type ExpectStatus = ReturnType<typeof expectingStatus>;
