import { open } from 'node:fs/promises';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS } from '../local/services';
import type { StackInfo } from './runtime';

/** What the webhook bench (bench/webhooks.ts) reads of the local runtime besides the receiver: the API, queues, log. */

/** `DELETE` on the API (ApiClient has GET and POST only). */
export function apiDelete(baseUrl: string, apiKey: string, path: string): Promise<number> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method: 'DELETE',
        headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export type QueueDepths = Record<string, { visible: number; in_flight: number; delayed: number }>;

/**
 * What is in the events and deliveries queues and their DLQs: `depths()` is undefined when stack.json
 * lacks the queues, an error text when the emulator did not answer.
 */
export function queueInspector(stack: StackInfo) {
  const sqs = new SQSClient({
    endpoint: stack.sqs_endpoint,
    region: stack.region,
    credentials: LOCAL_CREDENTIALS,
    useQueueUrlAsEndpoint: false,
  });
  const queues: Record<string, string | undefined> = {
    events: stack.queue_urls?.events,
    events_dlq: stack.dlq_urls?.events,
    feed: stack.queue_urls?.feed,
    feed_dlq: stack.dlq_urls?.feed,
    deliveries: stack.queue_urls?.deliveries,
    deliveries_dlq: stack.dlq_urls?.deliveries,
  };
  const depthOf = async (url: string): Promise<QueueDepths[string]> => {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return {
      visible: Number(Attributes.ApproximateNumberOfMessages ?? Number.NaN),
      in_flight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? Number.NaN),
      delayed: Number(Attributes.ApproximateNumberOfMessagesDelayed ?? Number.NaN),
    };
  };
  const inspector = {
    async depths(): Promise<QueueDepths | string | undefined> {
      if (!stack.sqs_endpoint || !stack.queue_urls || !stack.dlq_urls) return undefined;
      try {
        const depths: QueueDepths = {};
        for (const [name, url] of Object.entries(queues)) if (url) depths[name] = await depthOf(url);
        return depths;
      } catch (error) {
        return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    },
    /** Whether the queue at `url` holds nothing now: no message visible, in flight or delayed. */
    async holdsNothing(url: string): Promise<boolean> {
      const { visible, in_flight, delayed } = await depthOf(url);
      return visible + in_flight + delayed === 0;
    },
    /**
     * Waits until the queue holds nothing (visible, in flight or delayed) twice in a row, at most `timeoutMs`;
     * answers when it was first seen empty (performance.now()), undefined at the deadline.
     */
    async untilDrained(name: string, timeoutMs: number, abort: AbortSignal): Promise<number | undefined> {
      const deadline = performance.now() + timeoutMs;
      let emptySince: number | undefined;
      while (performance.now() < deadline) {
        abort.throwIfAborted();
        const depths = await inspector.depths();
        const depth = typeof depths === 'object' ? depths[name] : undefined;
        const held = depth ? depth.visible + depth.in_flight + depth.delayed : Number.NaN;
        if (held === 0) {
          if (emptySince !== undefined) return emptySince;
          emptySince = performance.now();
        } else emptySince = undefined;
        await sleep(200);
      }
      return undefined;
    },
    destroy: () => sqs.destroy(),
  };
  return inspector;
}

/** Lines of the runtime's log written since `offset` that mention each of `needles`. */
export async function countLogLines(
  file: string,
  offset: number,
  needles: readonly string[],
): Promise<Record<string, number>> {
  const counts = Object.fromEntries(needles.map((needle) => [needle, 0]));
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await handle.read(buffer, 0, buffer.length, offset);
    for (const line of buffer.toString('utf8').split('\n'))
      for (const needle of needles) if (line.includes(needle)) counts[needle] = (counts[needle] ?? 0) + 1;
  } finally {
    await handle.close();
  }
  return counts;
}
