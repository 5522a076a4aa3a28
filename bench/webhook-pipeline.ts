import { appendToFeed } from '../functions/workers/append-to-feed/consumer';
import { deliverWebhooks } from '../functions/workers/deliver-webhooks/consumer';
import { fanOutEvents } from '../functions/workers/fan-out-events/consumer';
import { EVENT_PIPE_BATCH_SIZE } from '../lib/constructs/event-pipe';
import type { PartitionUsage } from '../local/aws-proxy/dynamodb-partitions';
import { reportedDurations } from './drivers';
import { partitionFloor } from './partitions';
import { median, round } from './stats';
import type { Receiver } from './webhook-receiver';

/**
 * Where a webhook delivery's time goes in the local pipeline, and what the same pipeline would take on AWS for a
 * burst, from the consumers' own settings (functions/workers/<name>/consumer.ts), the handler times the runtime
 * reported (REPORT lines) and the units the partition model counted.
 */

/** The Lambda functions of the pipeline, by the label the runtime's log gives them. */
const STAGES = [
  { name: 'fan_out', label: 'FanOutEventsFunction', consumer: fanOutEvents },
  { name: 'feed', label: 'AppendToFeedFunction', consumer: appendToFeed },
  { name: 'delivery', label: 'DeliverWebhooksFunction', consumer: deliverWebhooks },
] as const;

type StageName = (typeof STAGES)[number]['name'];

export interface StageTimes {
  invocations: number;
  /** Records handled, over the invocations: what each batch held on average. */
  records_per_invocation: number;
  invocation_ms: { median: number; mean: number };
  /** The stage's handler time per record it handled (event or delivery attempt). */
  ms_per_record: number;
}

/**
 * The handler time of each stage during the load (REPORT lines after `logOffset`): `records` says how many
 * records each stage handled (events for the fan-out and the feed, delivery attempts for the delivery).
 */
export function stageTimes(
  logFile: string,
  logOffset: number,
  records: Record<StageName, number>,
): Record<StageName, StageTimes> {
  const times = {} as Record<StageName, StageTimes>;
  for (const stage of STAGES) {
    const durations = reportedDurations(logFile, logOffset, stage.label);
    const total = durations.reduce((sum, ms) => sum + ms, 0);
    times[stage.name] = {
      invocations: durations.length,
      records_per_invocation: round(records[stage.name] / Math.max(1, durations.length), 2),
      invocation_ms: {
        median: round(median(durations), 1),
        mean: round(total / Math.max(1, durations.length), 1),
      },
      ms_per_record: round(total / Math.max(1, records[stage.name]), 2),
    };
  }
  return times;
}

/**
 * What AWS needs to deliver a burst of `events` events to `webhooks` webhooks each, stage by stage: each stage
 * works through its records at (its batches in flight) x (records a batch) / (a batch's time), the batches in
 * flight being the consumer's maximum concurrency (the event pipe's: one batch at a time per stream shard,
 * `streamShards` of them), a batch's time the handler time measured here (DynamoDB Local and the local runtime
 * are slower than AWS: an upper bound) at full batches, and the pipe's a SendMessageBatch round trip
 * (`sendBatchMs`, assumed). Stages overlap, so the burst takes about its slowest stage, plus one batch of each
 * before it, and no less than the partition floor its units put under it. The feed runs beside the webhooks,
 * not before them.
 */
export function awsBurstModel(options: {
  events: number;
  webhooks: number;
  times: Record<StageName, StageTimes>;
  /** The partition model's units per event on the busiest key, from the measured run. */
  busiestKeyUnitsPerEvent: { key: string; write: number; read: number };
  streamShards?: number;
  sendBatchMs?: number;
}) {
  const { events, webhooks, times } = options;
  const streamShards = options.streamShards ?? 1;
  const sendBatchMs = options.sendBatchMs ?? 20;
  const deliveries = events * webhooks;
  const batchMs = (stage: StageName, batchSize: number) =>
    // A full batch's time from the time per record; an invocation's fixed cost is part of that per-record time,
    // so this errs slow for stages that ran with small batches.
    Math.max(times[stage].invocation_ms.median, times[stage].ms_per_record * batchSize);
  const stage = (records: number, inFlight: number, batchSize: number, msPerBatch: number) => {
    const perSecond = (inFlight * batchSize * 1000) / msPerBatch;
    return {
      records,
      batches_in_flight: inFlight,
      batch_size: batchSize,
      batch_ms: round(msPerBatch, 1),
      records_per_s: round(perSecond, 1),
      seconds: round(records / perSecond, 1),
    };
  };
  const stages = {
    event_pipe: stage(events, streamShards, EVENT_PIPE_BATCH_SIZE, sendBatchMs),
    fan_out: stage(
      events,
      fanOutEvents.maxConcurrency,
      fanOutEvents.batchSize,
      batchMs('fan_out', fanOutEvents.batchSize),
    ),
    delivery: stage(
      deliveries,
      deliverWebhooks.maxConcurrency,
      deliverWebhooks.batchSize,
      batchMs('delivery', deliverWebhooks.batchSize),
    ),
    // One account's events: its FIFO group takes one batch at a time.
    feed_one_account: stage(events, 1, appendToFeed.batchSize, batchMs('feed', appendToFeed.batchSize)),
  };
  const webhookPath = [stages.event_pipe, stages.fan_out, stages.delivery];
  const slowest = Math.max(...webhookPath.map((s) => s.seconds));
  const fill = webhookPath.reduce((sum, s) => sum + s.batch_ms / 1000, 0);
  const { write, read } = options.busiestKeyUnitsPerEvent;
  const partitionFloor = events * Math.max(write / 1000, read / 3000);
  return {
    events,
    webhooks,
    deliveries,
    stream_shards: streamShards,
    assumed_send_message_batch_ms: sendBatchMs,
    stages,
    busiest_key: options.busiestKeyUnitsPerEvent.key,
    partition_floor_seconds: round(partitionFloor, 1),
    webhook_deliveries_seconds: round(Math.max(slowest + fill, partitionFloor), 1),
    feed_seconds_one_account: round(Math.max(stages.feed_one_account.seconds, partitionFloor), 1),
  };
}

/** The busiest partition key of the run, by units per event; each key's kind in words. */
export function busiestKeyPerEvent(partitions: readonly PartitionUsage[], events: number) {
  const busiest = [...partitions].sort(
    (a, b) =>
      Math.max(b.writeUnits / 1000, b.readUnits / 3000) - Math.max(a.writeUnits / 1000, a.readUnits / 3000),
  )[0];
  return {
    key: busiest ? keyKind(busiest.partitionKey) : 'none',
    write: round((busiest?.writeUnits ?? 0) / events, 2),
    read: round((busiest?.readUnits ?? 0) / events, 2),
  };
}

/** The kind of item a partition key holds (its prefix), without the account's or route's ids. */
export const keyKind = (partitionKey: string) => `${partitionKey.split('#')[0]}#…`;

/** The busiest keys, a line each: kind, write and read units. */
export function busiestKeys(partitions: readonly PartitionUsage[], count = 5) {
  return [...partitions]
    .sort((a, b) => b.writeUnits - a.writeUnits)
    .slice(0, count)
    .map((p) => ({
      key: keyKind(p.partitionKey),
      index: p.index,
      write_units: round(p.writeUnits),
      read_units: round(p.readUnits),
    }));
}

/** A burst AWS is modelled on: 10,000 events to the scenario's webhooks. */
const BURST_EVENTS = 10_000;

/**
 * The webhook scenario's figures of its load: where a delivery's local time went, the DynamoDB work of the load
 * under the partition model (its floor on AWS, the busiest keys) and the AWS burst model.
 */
export function pipelineFigures(run: {
  logFile: string;
  logOffset: number;
  events: number;
  webhooks: number;
  attempts: number;
  receiver: Pick<Receiver, 'handled' | 'handlingMs'>;
  writeToFirstAttemptMs: number[];
  partitions: PartitionUsage[] | undefined;
}) {
  const times = stageTimes(run.logFile, run.logOffset, {
    fan_out: run.events,
    feed: run.events,
    delivery: run.attempts,
  });
  const firstAttemptMs = median(run.writeToFirstAttemptMs);
  const floor = run.partitions ? partitionFloor(run.partitions) : undefined;
  const busiest = run.partitions ? busiestKeyPerEvent(run.partitions, run.events) : undefined;
  return {
    floorSeconds: floor?.aws_floor_seconds ?? Number.NaN,
    figures: {
      pipeline_local_ms: {
        note:
          'per record, from the functions’ REPORT lines during the load: fan-out and feed per event, delivery per ' +
          'attempt, the receiver per request; waiting = the median write -> first attempt less one fan-out and ' +
          'one delivery invocation (median): the stream, the pipe, the queues and the runtime’s scheduling',
        write_to_first_attempt_median: round(firstAttemptMs, 1),
        waiting: round(
          firstAttemptMs - times.fan_out.invocation_ms.median - times.delivery.invocation_ms.median,
          1,
        ),
        fan_out_per_event: times.fan_out.ms_per_record,
        feed_per_event: times.feed.ms_per_record,
        delivery_per_attempt: times.delivery.ms_per_record,
        receiver_per_request: round(run.receiver.handlingMs / Math.max(1, run.receiver.handled), 3),
        stages: times,
      },
      load_partitions: floor
        ? { ...floor, busiest_keys: busiestKeys(run.partitions ?? []) }
        : { note: 'the runtime runs without the partition model (BENCH_PARTITIONS=off)' },
      [`aws_burst_${BURST_EVENTS / 1000}k_events_${run.webhooks}_webhooks`]: busiest
        ? {
            note:
              'a model, not a measurement: each stage takes its records at its batches in flight x batch size / ' +
              'batch time (the handler times measured here, an upper bound; the event pipe one SendMessageBatch ' +
              'at a time per stream shard); stages overlap, so the burst takes about its slowest stage plus one ' +
              'batch of each before it, and no less than its partition floor (the busiest key’s units per event ' +
              'measured here, times the burst)',
            ...awsBurstModel({
              events: BURST_EVENTS,
              webhooks: run.webhooks,
              times,
              busiestKeyUnitsPerEvent: busiest,
            }),
          }
        : null,
    },
  };
}
