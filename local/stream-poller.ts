import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard as StreamShard,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './services';

export interface StreamPoller {
  /** Resolves once the shards open at startup have their iterators: writes after this are carried. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

interface ShardState {
  id: string;
  start: 'LATEST' | 'TRIM_HORIZON';
  iterator?: string;
  /** Last record sent, to resume after an expired iterator without losing or repeating records. */
  lastSequence?: string;
}

/** The EventBridge Pipe's filter: only new event items travel to the events queue. */
const isEventInsert = (record: StreamRecord) =>
  record.eventName === 'INSERT' && record.dynamodb?.NewImage?.entity?.S === 'EVENT';

/**
 * The local stand-in for the table stream -> EventBridge Pipe -> SQS `events` path: reads the table's
 * stream on DynamoDB Local and sends each new event item, as the pipe's SQS target would receive it,
 * to the events queue. Delivery is at least once (a failed send re-reads the same records), as on AWS.
 */
export function startStreamPoller(options: {
  dynamodbEndpoint: string;
  awsEndpoint: string;
  tableName: string;
  eventQueueUrl: string;
  pollIntervalMs?: number;
}): StreamPoller {
  const config = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamodb = new DynamoDBClient({ ...config, endpoint: options.dynamodbEndpoint });
  const streams = new DynamoDBStreamsClient({ ...config, endpoint: options.dynamodbEndpoint });
  const sqs = new SQSClient({ ...config, endpoint: options.awsEndpoint });
  const interval = options.pollIntervalMs ?? 250;
  const shards = new Map<string, ShardState>();
  const finished = new Set<string>();
  let streamArn: string | undefined;
  let startedUp = false;
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
  const loop = run();

  async function run(): Promise<void> {
    while (running) {
      let busy = false;
      try {
        await refreshShards();
        markReady();
        for (const shard of shards.values()) if (running && (await readShard(shard))) busy = true;
      } catch (error) {
        if (running) console.error('stream poller: will retry after', error);
      }
      // A shard that just returned records may hold more: read again at once to catch up.
      if (running && !busy) await sleep(interval);
    }
  }

  async function refreshShards(): Promise<void> {
    streamArn ??= (await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }))).Table
      ?.LatestStreamArn;
    if (!streamArn) throw new Error(`table ${options.tableName} has no stream`);
    const listed: StreamShard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId }),
      );
      listed.push(...(StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    const listedIds = new Set(listed.map((shard) => shard.ShardId));
    // Shards closed before startup only hold records of earlier runs, which must not be sent again.
    if (!startedUp)
      for (const shard of listed)
        if (shard.SequenceNumberRange?.EndingSequenceNumber) finished.add(shard.ShardId as string);
    for (const shard of listed) {
      const id = shard.ShardId as string;
      if (shards.has(id) || finished.has(id)) continue;
      // Read a child only after its parent, as Lambda and Pipes do, so one item's changes stay in order.
      const parent = shard.ParentShardId;
      if (parent && listedIds.has(parent) && !finished.has(parent)) continue;
      // Open at startup: from now on (a restart must not resend). Found later: from its first record.
      const state: ShardState = { id, start: startedUp ? 'TRIM_HORIZON' : 'LATEST' };
      state.iterator = await shardIterator(state);
      shards.set(id, state);
    }
    startedUp = true;
  }

  async function shardIterator(shard: ShardState): Promise<string | undefined> {
    const position = shard.lastSequence
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: shard.lastSequence }
      : { ShardIteratorType: shard.start };
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.id, ...position }),
    );
    return ShardIterator;
  }

  /** Reads one page of the shard and sends its events; true when the page had records. */
  async function readShard(shard: ShardState): Promise<boolean> {
    shard.iterator ??= await shardIterator(shard);
    let page: GetRecordsCommandOutput;
    try {
      page = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator }));
    } catch (error) {
      // An iterator lives 15 minutes (e.g. across a laptop's sleep): take a new one from the last record sent.
      if (error instanceof Error && /ExpiredIterator|TrimmedDataAccess/.test(error.name))
        shard.iterator = undefined;
      throw error;
    }
    const records = page.Records ?? [];
    await sendEvents(records.filter(isEventInsert));
    // Only now move on: when sending failed, the same iterator (they are reusable) reads these records again.
    shard.lastSequence = records.at(-1)?.dynamodb?.SequenceNumber ?? shard.lastSequence;
    shard.iterator = page.NextShardIterator;
    if (!shard.iterator) {
      // A closed shard read to its end: its children take over.
      shards.delete(shard.id);
      finished.add(shard.id);
    }
    return records.length > 0;
  }

  async function sendEvents(records: StreamRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += 10) {
      const { Failed } = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: options.eventQueueUrl,
          Entries: records.slice(start, start + 10).map((record, index) => ({
            Id: String(index),
            MessageBody: JSON.stringify(pipeMessage(record)),
          })),
        }),
      );
      if (Failed?.length)
        throw new Error(`events queue refused ${Failed.length} messages: ${Failed[0]?.Message}`);
    }
  }

  /** The record as a pipe hands it to its SQS target: the Lambda event record shape, times in epoch seconds. */
  function pipeMessage(record: StreamRecord) {
    const created = record.dynamodb?.ApproximateCreationDateTime;
    return {
      ...record,
      eventSourceARN: streamArn,
      dynamodb: { ...record.dynamodb, ApproximateCreationDateTime: created && created.getTime() / 1000 },
    };
  }

  return {
    ready,
    stop: async () => {
      running = false;
      wake();
      await loop;
      markReady(); // nobody waits forever on a poller stopped before it was ready
      dynamodb.destroy();
      streams.destroy();
      sqs.destroy();
    },
  };
}
