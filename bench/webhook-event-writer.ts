import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { putEventItem } from '../functions/data/events';
import { inParallel, RawTable } from './dynamo';
import type { StackInfo } from './runtime';
import { round } from './stats';
import { type BenchWebhook, EVENT_TYPE, type Pair, pairKey, Receiver } from './webhook-receiver';
import { queueInspector } from './webhook-runtime';

/**
 * The webhook bench's events (bench/webhooks.ts): event items written into the table as the service's
 * transactions write them, each with its (event, webhook) pairs known to the receiver first, and the wait
 * until every pair has been delivered.
 */

/** An event item to write, and its pairs (one per webhook). */
export interface PreparedEvent {
  transactItem: ReturnType<typeof putEventItem>;
  pairs: Pair[];
}

/** The load webhook_delivery writes, and customer_messages beside the driver API. */
export const WEBHOOK_LOAD = {
  /** Every failEvery-th (event, webhook) pair gets a 500 on its first attempt: exactly 20 %. */
  failEvery: 5,
  /** Event writes in flight: one event per TransactWriteItems, as a handler writes its state change. */
  writeParallelism: 10,
} as const;

/** Where the load goes and is watched: the webhooks, their receiver, the table written raw and the queues. */
export interface LoadTargets {
  /** The webhooks every event goes to, as the scenario creates (and deletes) them. */
  webhooks: BenchWebhook[];
  receiver: Receiver;
  raw: RawTable;
  queues: ReturnType<typeof queueInspector>;
}

/** A scenario's load targets: no webhooks yet, a receiver not yet listening. */
export const loadTargets = (stack: StackInfo, abort: AbortSignal): LoadTargets => ({
  webhooks: [],
  receiver: new Receiver(),
  raw: new RawTable(stack, abort),
  queues: queueInspector(stack),
});

/** Closes what `loadTargets` opened (the scenario deletes its webhooks first). */
export async function closeLoadTargets({ raw, queues, receiver }: LoadTargets): Promise<void> {
  raw.destroy();
  queues.destroy();
  await receiver.close();
}

export interface EventWriterOptions extends LoadTargets {
  /** The demo account's, DC's and driver's ids: whose events they are. */
  accountId: string;
  dcId: string;
  driverId: string;
  /** Goes into every route id, so that two runs' events never share one. */
  runId: string;
  abort: AbortSignal;
  log(message: string): void;
  progressEveryMs: number;
}

export class EventWriter {
  /** Events written since this was last set to 0: for the progress lines. */
  written = 0;
  /** What the waits with `record` saw, every progressEveryMs. */
  readonly timeline: Record<string, number | string>[] = [];
  /** Why writing failed while a wait ran beside the writes: the wait throws it. */
  writeError: unknown;
  readonly #options: EventWriterOptions;

  constructor(options: EventWriterOptions) {
    this.#options = options;
  }

  /** The event items and their pairs (one per webhook), known to the receiver before anything is written. */
  prepare(count: number, first: number, beforeLoad: boolean): PreparedEvent[] {
    const { accountId, dcId, driverId, runId, webhooks, receiver } = this.#options;
    return Array.from({ length: count }, (_, i) => {
      const index = first + i;
      const occurredAt = Date.now();
      const transactItem = putEventItem({
        accountId,
        dcId,
        routeId: `bench-wh-${runId}-${String(index).padStart(4, '0')}`,
        type: EVENT_TYPE,
        details: { driver_id: driverId, started_timestamp: occurredAt },
        occurredAt,
      });
      const eventId = transactItem.Put.Item.event_id;
      const pairs = webhooks.map((webhook, w): Pair => {
        const pair: Pair = {
          eventId,
          webhook,
          failFirst: !beforeLoad && (index * webhooks.length + w) % WEBHOOK_LOAD.failEvery === 0,
          beforeLoad,
          requests: 0,
          successes: 0,
        };
        receiver.pairs.set(pairKey(eventId, webhook.id), pair);
        return pair;
      });
      return { transactItem, pairs };
    });
  }

  /** One TransactWriteItems per event, the load's writeParallelism in flight; sets the pairs' write times; ms. */
  async write(events: readonly PreparedEvent[]): Promise<number> {
    const { raw, abort } = this.#options;
    const started = performance.now();
    await inParallel(events, WEBHOOK_LOAD.writeParallelism, abort, async ({ transactItem, pairs }) => {
      await raw.db.send(new TransactWriteCommand({ TransactItems: [transactItem] }));
      const writtenAt = performance.now();
      for (const pair of pairs) pair.writtenAt = writtenAt;
      this.written++;
    });
    return performance.now() - started;
  }

  /**
   * Resolves when every pair has a success; false at the deadline. Every progressEveryMs a line on
   * stderr and, with `record`, a timeline entry: what was written and delivered, what waits in the queues.
   */
  async waitForDeliveries(
    pairs: Pair[],
    deadlineMs: number,
    label: string,
    record: boolean,
  ): Promise<boolean> {
    const { receiver, queues, abort, log, progressEveryMs } = this.#options;
    const started = performance.now();
    let nextProgress = started + progressEveryMs;
    for (;;) {
      abort.throwIfAborted();
      if (this.writeError) throw this.writeError;
      const done = pairs.filter((pair) => pair.firstSuccessAt !== undefined).length;
      if (done === pairs.length) return true;
      const now = performance.now();
      if (now - started > deadlineMs) return false;
      if (now >= nextProgress) {
        nextProgress += progressEveryMs;
        const depths = await queues.depths();
        const entry: Record<string, number | string> = {
          t_s: round((now - started) / 1000, 1),
          events_written: this.written,
          pairs_delivered: done,
          induced_failures: receiver.inducedFailures,
        };
        if (typeof depths === 'object')
          for (const [name, depth] of Object.entries(depths))
            if (!name.endsWith('_dlq') || depth.visible + depth.in_flight + depth.delayed > 0)
              entry[name] = `${depth.visible}/${depth.in_flight}/${depth.delayed}`;
        if (record) this.timeline.push(entry);
        log(
          `  ${label}: ${JSON.stringify(entry)} (queues: visible/in flight/delayed; ` +
            `${receiver.badSignatures} bad signatures)`,
        );
      }
      await sleep(100);
    }
  }
}
