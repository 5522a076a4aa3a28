import { performance } from 'node:perf_hooks';
import {
  type HttpReceiver,
  independentlyVerified,
  type ReceivedRequest,
  type Respond,
  startHttpReceiver,
} from './http-receiver';

/** The webhook bench's receiver (bench/webhooks.ts): what it counts of the pipeline's and the raw POSTs. */

export const EVENT_TYPE = 'ROUTE_STARTED';
/** Marks the raw baseline's POSTs, so a late delivery from the pipeline during that run still counts as one. */
export const RAW_HEADER = 'x-bench-raw';

export interface BenchWebhook {
  id: string;
  secret: string;
}

/** One (event, webhook) pair as the receiver saw it. */
export interface Pair {
  eventId: string;
  webhook: BenchWebhook;
  /** Answer 500 to its first request. */
  failFirst: boolean;
  /** The warm-up's and light load's pairs: delivered before the 2,000-event load, left out of its numbers. */
  beforeLoad: boolean;
  /** performance.now() when the event's TransactWriteItems was acknowledged. */
  writtenAt?: number;
  requests: number;
  successes: number;
  firstRequestAt?: number;
  firstSuccessAt?: number;
  /** The body of the first successful POST: the raw baseline sends these again. */
  body?: string;
}

export const pairKey = (eventId: string, webhookId: string) => `${eventId}\u0000${webhookId}`;

/**
 * The webhook receiver: node:http on 127.0.0.1 in the bench process. Pipeline POSTs are matched to their
 * (event, webhook) pair by X-Event-Id and X-Webhook-Id; the pairs chosen to fail get 500 on their first
 * request, everything else 200. Raw-baseline POSTs (RAW_HEADER) are checked the same way and always get 200.
 */
export class Receiver {
  readonly pairs = new Map<string, Pair>();
  readonly webhooks = new Map<string, BenchWebhook>();
  delivered = 0;
  inducedFailures = 0;
  badSignatures = 0;
  /** Requests for no known pair, or whose body does not match its headers. */
  unexpected = 0;
  rawReceived = 0;
  /** Requests of pairs handled, and the time the receiver spent on them (verifying, answering). */
  handled = 0;
  handlingMs = 0;
  readonly samples: string[] = [];
  #http: HttpReceiver | undefined;

  /** Starts listening; returns the origin (`http://127.0.0.1:<port>`). */
  async listen(): Promise<string> {
    this.#http = await startHttpReceiver((req, respond) => this.#handle(req, respond));
    return this.#http.origin;
  }

  async close(): Promise<void> {
    await this.#http?.close();
  }

  #sample(message: string) {
    if (this.samples.length < 5) this.samples.push(message);
  }

  #handle(req: ReceivedRequest, respond: Respond) {
    const now = performance.now();
    const { body } = req;
    const answer = (status: number) => respond(status, status === 200 ? 'ok' : 'no');
    const webhookId = String(req.headers['x-webhook-id'] ?? '');
    const eventId = String(req.headers['x-event-id'] ?? '');
    const webhook = this.webhooks.get(webhookId);
    if (req.method !== 'POST' || !webhook) {
      this.unexpected++;
      this.#sample(`${req.method} ${req.path} for unknown webhook '${webhookId}'`);
      return answer(200);
    }
    const signature = req.headers['x-signature'];
    if (typeof signature !== 'string' || !independentlyVerified(webhook.secret, signature, body)) {
      this.badSignatures++;
      this.#sample(
        `bad signature '${req.headers['x-signature']}' from webhook ${webhookId}, event ${eventId}`,
      );
      return answer(401);
    }
    if (req.headers[RAW_HEADER]) {
      this.rawReceived++;
      return answer(200);
    }
    const pair = this.pairs.get(pairKey(eventId, webhookId));
    let parsed: { event?: unknown; event_id?: unknown } | undefined;
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    if (!pair || parsed?.event_id !== eventId || parsed.event !== EVENT_TYPE) {
      this.unexpected++;
      this.#sample(`unexpected POST for webhook ${webhookId}, event '${eventId}': ${body.slice(0, 200)}`);
      return answer(200);
    }
    pair.requests++;
    pair.firstRequestAt ??= now;
    this.handled++;
    this.handlingMs += performance.now() - now;
    if (pair.failFirst && pair.requests === 1) {
      this.inducedFailures++;
      return answer(500);
    }
    pair.successes++;
    if (pair.firstSuccessAt === undefined) {
      pair.firstSuccessAt = now;
      pair.body = body;
      if (!pair.beforeLoad) this.delivered++;
    }
    answer(200);
  }
}
