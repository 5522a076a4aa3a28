import { existsSync, readFileSync } from 'node:fs';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard as StreamShard,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { PipeSpec, QueueSpec } from '../cloud/model';
import { withoutSdkLogging } from '../services';
import { writeStateFile } from '../state-files';
import { matchesPattern } from './event-pattern';
import type { Credentials } from './sqs';

export interface LocalPipe {
  /** Resolves once every shard open at start has its iterator: writes after this are carried. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface LocalPipeOptions {
  pipe: PipeSpec;
  queues: readonly QueueSpec[];
  /** The local AWS endpoint (the signing proxy): the pipe reads and sends with its role's credentials. */
  endpoint: string;
  region: string;
  credentials: Credentials;
  /** Where shard positions are kept between runs, as the pipe keeps them on AWS (none: start afresh). */
  checkpointFile?: string;
  /** How often to read a shard read to its end (see nextReadDelay). @default PIPE_READ_INTERVALS */
  readIntervals?: PipeReadIntervals;
  /** Backoff before the first retry of a failed batch; it doubles up to a minute, as Pipes backs off. */
  retryDelayMs?: number;
}

export interface PipeReadIntervals {
  /** The pause after a read short of a full page while the stream had records within `activeWindowMs`. */
  activeMs: number;
  /** The same pause once the stream has been quiet that long. */
  idleMs: number;
  activeWindowMs: number;
}

/**
 * Pipes reads a shard about four times a second (250 ms), which alone puts 125 ms on average between a write
 * and its message. Locally the pipe reads more often while the stream has traffic (reading more often never
 * changes what is delivered, only when), and at Pipes' own pace once it has been quiet for a while, so that
 * an idle runtime does not keep DynamoDB Local busy.
 */
export const PIPE_READ_INTERVALS: PipeReadIntervals = { activeMs: 20, idleMs: 250, activeWindowMs: 10_000 };

/** The most records one GetRecords gives (DynamoDB Streams' limit), which the pipe asks for. */
const GET_RECORDS_PAGE = 1000;

/**
 * The pause before the next read of the shards, after a read whose largest page held `pageRecords` records,
 * `sinceRecordsMs` after the last read that gave some: none after a full page (more records wait), else
 * `activeMs` while the stream had records within `activeWindowMs`, Pipes' own pace once it has been quiet. A
 * page short of full read the shard to its end: read again at once, it would mostly find the few records
 * written since, a request each. Two 25,000-item imports and a warm-up took each pipe 25,000 reads of about five
 * records; with the pause 5,000 of about twenty, the runtime spent half the CPU, and the imports were as fast.
 */
export function nextReadDelay(
  pageRecords: number,
  sinceRecordsMs: number,
  intervals = PIPE_READ_INTERVALS,
): number {
  if (pageRecords >= GET_RECORDS_PAGE) return 0;
  return sinceRecordsMs < intervals.activeWindowMs ? intervals.activeMs : intervals.idleMs;
}

/** The largest batch Pipes sends an SQS target ("Amazon EventBridge Pipes batching and concurrency"). */
const MAX_SQS_TARGET_BATCH = 10;

/** How often the pipe looks for new shards besides when one ends. */
const SHARD_LIST_REFRESH_MS = 30_000;

interface ShardState {
  id: string;
  iterator?: string;
  /** Last record done with (sent, filtered out, or given up), to resume after an expired iterator. */
  lastSequence?: string;
  /** Failed attempts of the batch at the head of the shard (any error: they set the backoff). */
  failures: number;
  /** Those of them the target refused (what MaximumRetryAttempts counts). */
  refusals: number;
  /** Records of the head batch the target already took (by eventID): a retry sends only the rest. */
  sent: Set<string>;
  retryAt: number;
}

interface Checkpoints {
  shards: Record<string, string>;
  finished: string[];
}

/**
 * The local stand-in for an EventBridge Pipe from a DynamoDB stream to an SQS queue, configured as deployed:
 * the pipe's filter, batch size, starting position, retry and record-age limits and dead-letter queue, with
 * its role's credentials (the role needs its stream and queue grants, as on AWS). Records are read per shard
 * in order, as Pipes reads them (AWS's "Amazon EventBridge Pipes error handling" and "batching" pages):
 * - a batch the target refuses is tried again after a backoff, the records behind it on its shard waiting;
 * - of a batch sent with SendMessageBatch, a retry sends only the entries SQS did not take;
 * - refusals of the target (4xx) count against MaximumRetryAttempts; errors of the service or the connection
 *   (5xx, throttling, network) are retried without limit, as Pipes retries its internal errors;
 * - once a batch passes MaximumRetryAttempts or MaximumRecordAgeInSeconds (both unlimited by default, as on
 *   AWS), the dead-letter queue gets a description of it (where it is in the stream, not its records) and
 *   the records behind it flow again; without a dead-letter queue it is dropped.
 */
export function startPipe(options: LocalPipeOptions): LocalPipe {
  const { pipe } = options;
  const source = pipe.streamSource;
  if (!source) throw new Error(`pipe ${pipe.name}: only DynamoDB stream sources are supported locally`);
  const target = options.queues.find((queue) => queue.arn === pipe.target);
  if (!target) throw new Error(`pipe ${pipe.name}: only SQS targets are supported locally`);
  const deadLetter = source.deadLetterArn
    ? options.queues.find((queue) => queue.arn === source.deadLetterArn)
    : undefined;
  if (source.batchSize > MAX_SQS_TARGET_BATCH) {
    // Pipes refuses a batch size its target cannot take in one call (SendMessageBatch: 10 messages).
    throw new Error(
      `pipe ${pipe.name}: batch size ${source.batchSize}; an SQS target takes ${MAX_SQS_TARGET_BATCH}`,
    );
  }
  if (source.onPartialBatchItemFailure !== undefined && source.batchSize > 1) {
    // Bisecting batches is not played locally: rather refuse the template than run it differently.
    throw new Error(`pipe ${pipe.name}: OnPartialBatchItemFailure is not supported locally`);
  }
  const pipeArn = `arn:aws:pipes:${options.region}:${pipe.roleArn.split(':')[4]}:pipe/${pipe.name}`;
  const patterns = pipe.filterPatterns.map((pattern) => JSON.parse(pattern) as unknown);
  const clientConfig = {
    endpoint: options.endpoint,
    region: options.region,
    credentials: options.credentials,
  };
  const streams = withoutSdkLogging(new DynamoDBStreamsClient(clientConfig));
  const sqs = withoutSdkLogging(new SQSClient({ ...clientConfig, useQueueUrlAsEndpoint: false }));
  const readIntervals = options.readIntervals ?? PIPE_READ_INTERVALS;
  let lastRecordsAt = Number.NEGATIVE_INFINITY;
  const firstRetryDelay = options.retryDelayMs ?? 1000;
  const checkpoints = readCheckpoints(options.checkpointFile);
  const shards = new Map<string, ShardState>();
  const finished = new Set(checkpoints.finished);
  let running = true;
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  let wake = () => {};
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  // DescribeStream is costly on DynamoDB Local (it reads the stream's records), and shards change seldom (a
  // closed shard's end is seen by reading it): the shard list is read at start, after a shard ends, and every
  // SHARD_LIST_REFRESH_MS.
  let shardListReadAt = Number.NEGATIVE_INFINITY;

  const loop = run();

  async function run(): Promise<void> {
    while (running) {
      let largestPage = 0;
      try {
        if (Date.now() - shardListReadAt >= SHARD_LIST_REFRESH_MS) {
          await refreshShards();
          shardListReadAt = Date.now();
        }
        markReady();
        for (const shard of shards.values())
          if (running) largestPage = Math.max(largestPage, await readShard(shard));
      } catch (error) {
        if (running) console.error(`pipe ${pipe.name}: will retry after`, error);
      }
      if (largestPage > 0) lastRecordsAt = Date.now();
      const delay = nextReadDelay(largestPage, Date.now() - lastRecordsAt, readIntervals);
      if (running && delay > 0) await sleep(delay);
    }
  }

  async function refreshShards(): Promise<void> {
    const listed: StreamShard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: pipe.source, ExclusiveStartShardId }),
      );
      listed.push(...(StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    const listedIds = new Set(listed.map((shard) => shard.ShardId));
    for (const shard of listed) {
      const id = shard.ShardId as string;
      if (shards.has(id) || finished.has(id)) continue;
      // A child only after its parent, as Pipes reads them, so that one item's changes stay in order.
      const parent = shard.ParentShardId;
      if (parent && listedIds.has(parent) && !finished.has(parent)) continue;
      shards.set(id, {
        id,
        lastSequence: checkpoints.shards[id],
        failures: 0,
        refusals: 0,
        sent: new Set(),
        retryAt: 0,
      });
    }
  }

  async function shardIterator(shard: ShardState): Promise<string | undefined> {
    const position = shard.lastSequence
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: shard.lastSequence }
      : { ShardIteratorType: source?.startingPosition ?? 'TRIM_HORIZON' };
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: pipe.source, ShardId: shard.id, ...position }),
    );
    return ShardIterator;
  }

  /** Reads one page of the shard and passes its batches on; how many records the page held. */
  async function readShard(shard: ShardState): Promise<number> {
    if (Date.now() < shard.retryAt) return 0;
    shard.iterator ??= await shardIterator(shard);
    let page: GetRecordsCommandOutput;
    try {
      page = await streams.send(
        new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: GET_RECORDS_PAGE }),
      );
    } catch (error) {
      // An iterator lives 15 minutes (a laptop's sleep): take a new one after the last record done with.
      if (error instanceof Error && /ExpiredIterator|TrimmedDataAccess/.test(error.name))
        shard.iterator = undefined;
      throw error;
    }
    const records = page.Records ?? [];
    for (let start = 0; start < records.length; start += source?.batchSize ?? 1) {
      const batch = records.slice(start, start + (source?.batchSize ?? 1));
      if (!(await processBatch(shard, batch))) {
        // Read the same records again after the backoff: iterators from the last record done with.
        shard.iterator = undefined;
        return records.length;
      }
      shard.lastSequence = batch.at(-1)?.dynamodb?.SequenceNumber ?? shard.lastSequence;
      saveCheckpoints();
    }
    shard.iterator = page.NextShardIterator;
    if (!shard.iterator) {
      // A closed shard read to its end: its children take over.
      shards.delete(shard.id);
      finished.add(shard.id);
      saveCheckpoints();
      shardListReadAt = Number.NEGATIVE_INFINITY;
    }
    return records.length;
  }

  /** Sends a batch to the target; false when it failed and must be tried again later. */
  async function processBatch(shard: ShardState, batch: StreamRecord[]): Promise<boolean> {
    const wanted = batch
      .map(pipeRecord)
      .filter((record) => patterns.some((pattern) => matchesPattern(pattern, record)));
    if (wanted.length === 0) return true;
    const maxAge = source?.maximumRecordAgeSeconds ?? -1;
    const tooOld = maxAge >= 0 && batch.some((record) => ageSeconds(record) > maxAge);
    if (!tooOld) {
      try {
        await sendToTarget(
          wanted.filter((record) => !shard.sent.has(record.eventID ?? '')),
          shard.sent,
        );
        doneWithBatch(shard);
        return true;
      } catch (error) {
        shard.failures += 1;
        if (refusedByTarget(error)) shard.refusals += 1;
        const maxRetries = source?.maximumRetryAttempts ?? -1;
        if (maxRetries < 0 || shard.refusals <= maxRetries) {
          shard.retryAt = Date.now() + Math.min(60_000, firstRetryDelay * 2 ** (shard.failures - 1));
          console.error(
            `pipe ${pipe.name}: target refused a batch (attempt ${shard.failures}); will retry`,
            error,
          );
          return false;
        }
      }
    }
    await giveUp(shard, batch, tooOld ? 'RecordAgeExceeded' : 'RetryAttemptsExhausted');
    doneWithBatch(shard);
    return true;
  }

  function doneWithBatch(shard: ShardState): void {
    shard.failures = 0;
    shard.refusals = 0;
    shard.sent.clear();
  }

  /**
   * Sends the records, one message each, as Pipes does: with SendMessageBatch even for one record, the batch
   * as it is (SQS refuses one over 10 messages or 1 MiB whole, as BatchRequestTooLong, a 4xx). `sent` gets the
   * eventID of each record SQS took.
   */
  async function sendToTarget(records: PipeRecord[], sent: Set<string>): Promise<void> {
    const { messageGroupId, messageDeduplicationId } = pipe.sqsTarget ?? {};
    const { Successful = [], Failed = [] } = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: target?.url,
        Entries: records.map((record, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify(record),
          // Left out where the path finds no string: SQS then refuses a FIFO queue's message, as on AWS.
          MessageGroupId: messageGroupId && targetParameter(messageGroupId, record),
          MessageDeduplicationId: messageDeduplicationId && targetParameter(messageDeduplicationId, record),
        })),
      }),
    );
    for (const entry of Successful) sent.add(records[Number(entry.Id)]?.eventID ?? '');
    const [refused] = Failed;
    if (refused) {
      throw Object.assign(new Error(`target refused a message: ${refused.Code}: ${refused.Message}`), {
        $fault: refused.SenderFault ? 'client' : 'server',
      });
    }
  }

  /**
   * A batch that used up its retries (or got too old) goes to the dead-letter queue as Pipes describes a failed
   * stream batch: where it is in the stream (shard, first and last sequence numbers), not its records, which
   * an operator reads back from the stream. Without a DLQ it is dropped.
   */
  async function giveUp(shard: ShardState, batch: StreamRecord[], condition: string): Promise<void> {
    const first = batch[0]?.dynamodb;
    const last = batch.at(-1)?.dynamodb;
    const description = {
      context: { partnerResourceArn: pipeArn, condition },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId: shard.id,
        startSequenceNumber: first?.SequenceNumber,
        endSequenceNumber: last?.SequenceNumber,
        approximateArrivalOfFirstRecord: first?.ApproximateCreationDateTime?.toISOString(),
        approximateArrivalOfLastRecord: last?.ApproximateCreationDateTime?.toISOString(),
        batchSize: batch.length,
        streamArn: pipe.source,
      },
    };
    if (!deadLetter) {
      console.error(
        `pipe ${pipe.name}: dropped a batch (${condition}); it has no dead-letter queue`,
        description,
      );
      return;
    }
    console.error(`pipe ${pipe.name}: gave a batch up to its dead-letter queue (${condition})`, description);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: deadLetter.url, MessageBody: JSON.stringify(description) }),
    );
  }

  /** The record as the pipe's filter sees it and its SQS target receives it: times in epoch seconds. */
  function pipeRecord(record: StreamRecord): PipeRecord {
    const created = record.dynamodb?.ApproximateCreationDateTime;
    return {
      ...record,
      eventSourceARN: pipe.source,
      dynamodb: { ...record.dynamodb, ApproximateCreationDateTime: created && created.getTime() / 1000 },
    };
  }

  function saveCheckpoints(): void {
    if (!options.checkpointFile) return;
    const positions: Record<string, string> = { ...checkpoints.shards };
    for (const shard of shards.values()) if (shard.lastSequence) positions[shard.id] = shard.lastSequence;
    checkpoints.shards = positions;
    checkpoints.finished = [...finished];
    writeStateFile(options.checkpointFile, JSON.stringify(checkpoints));
  }

  return {
    ready,
    stop: async () => {
      running = false;
      wake();
      await loop;
      markReady(); // nobody waits forever on a pipe stopped before it was ready
      streams.destroy();
      sqs.destroy();
    },
  };
}

type PipeRecord = Omit<StreamRecord, 'dynamodb'> & {
  eventSourceARN: string;
  dynamodb: Omit<NonNullable<StreamRecord['dynamodb']>, 'ApproximateCreationDateTime'> & {
    ApproximateCreationDateTime?: number;
  };
};

/**
 * Whether the target refused the request (a 4xx of SQS: invalid contents, too long, access denied, no such
 * queue), which counts against MaximumRetryAttempts, rather than failed to answer it (5xx, throttling, the
 * connection), which Pipes retries without counting.
 */
function refusedByTarget(error: unknown): boolean {
  const { $fault, $retryable, name } = (error ?? {}) as {
    $fault?: string;
    $retryable?: { throttling?: boolean };
    name?: string;
  };
  return $fault === 'client' && !$retryable?.throttling && !/Throttl/i.test(name ?? '');
}

/**
 * A target parameter's value for one record: a static value as it is, or, starting with `$.`, what the JSON path
 * (dot notation and array indices, the part of Pipes' syntax a path to one value uses) finds in the record as
 * the target receives it; undefined where it finds no string or number.
 */
export function targetParameter(value: string, record: unknown): string | undefined {
  if (!value.startsWith('$.')) return value;
  let found: unknown = JSON.parse(JSON.stringify(record));
  for (const step of value.slice(2).split('.')) {
    const [, name, indices = ''] = /^([^[\]]*)((?:\[\d+\])*)$/.exec(step) ?? [];
    if (name === undefined) return undefined;
    if (name !== '') found = (found as Record<string, unknown> | undefined)?.[name];
    for (const [, index] of indices.matchAll(/\[(\d+)\]/g))
      found = Array.isArray(found) ? found[Number(index)] : undefined;
  }
  return typeof found === 'string' || typeof found === 'number' ? String(found) : undefined;
}

function ageSeconds(record: StreamRecord): number {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return created ? (Date.now() - created.getTime()) / 1000 : 0;
}

function readCheckpoints(file: string | undefined): Checkpoints {
  if (!file || !existsSync(file)) return { shards: {}, finished: [] };
  return JSON.parse(readFileSync(file, 'utf8')) as Checkpoints;
}
