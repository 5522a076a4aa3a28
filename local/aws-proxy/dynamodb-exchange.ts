/** One DynamoDB call through the capacity meter: forwarded to DynamoDB Local and answered as DynamoDB would. */
import type { IncomingMessage } from 'node:http';
import { crc32 } from 'node:zlib';
import type { TableSchema } from './dynamodb-capacity';
import type { Charge } from './dynamodb-partitions';
import type { SignedCall } from './principals';
import { endToEndHeaders, readBody, replyWith, sendJson, type Upstream } from './upstream';

export type Json = Record<string, unknown>;

/** The messages DynamoDB throttles with (on-demand: seen in live errors and in the API reference's list of cancellation reasons). */
const HOT_KEY_MESSAGE =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';
const HOT_INDEX_MESSAGE =
  'Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly.';
const PROVISIONED_TABLE_MESSAGE =
  'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.';
const PROVISIONED_INDEX_MESSAGE =
  'The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API.';

export interface Answer {
  response: IncomingMessage;
  status: number;
  raw: Buffer;
  body: Json;
  /** The error's name (`ConditionalCheckFailedException`), when the call failed. */
  error?: string;
}

/** One call on its way: forwarding it, and answering it as DynamoDB would. */
export class Exchange {
  constructor(
    private readonly call: SignedCall,
    private readonly upstream: Upstream,
    private readonly body: Buffer,
    private readonly tables: Map<string, TableSchema>,
  ) {}

  table(name: unknown): TableSchema {
    return this.tables.get(String(name)) as TableSchema;
  }

  /**
   * Sends the call (or a changed body) to DynamoDB Local and reads the whole answer; its JSON is parsed when
   * first read (an answer relayed as it came, a page of 1,000 items among them, is never parsed).
   */
  async forward(changed?: Json): Promise<Answer> {
    const { req } = this.call;
    const response = await this.upstream.send(
      'POST',
      req.url ?? '/',
      endToEndHeaders(req.headers),
      changed ? Buffer.from(JSON.stringify(changed)) : this.body,
    );
    const raw = await readBody(response);
    let parsed: Json | undefined;
    const body = (): Json => {
      if (parsed) return parsed;
      try {
        parsed = raw.length ? (JSON.parse(raw.toString('utf8')) as Json) : {};
      } catch {
        // Not JSON: relayed as it came.
        parsed = {};
      }
      return parsed;
    };
    const status = response.statusCode ?? 502;
    const type = status >= 400 ? body().__type : undefined;
    return {
      response,
      status,
      raw,
      get body() {
        return body();
      },
      error: typeof type === 'string' ? type.replace(/^.*#/, '') : undefined,
    };
  }

  /** Relays DynamoDB Local's answer, or `changed` in its place (with a fresh checksum). */
  reply(answer: Answer, changed?: Json | Buffer): void {
    const { response } = answer;
    if (!changed) {
      replyWith(this.call.res, response, answer.raw);
      return;
    }
    const text = Buffer.isBuffer(changed) ? changed : Buffer.from(JSON.stringify(changed));
    replyWith(this.call.res, response, text, {
      'x-amz-crc32': response.headers['x-amz-crc32'] === undefined ? undefined : String(crc32(text)),
    });
  }

  private arn(table: TableSchema, index?: string): string {
    const { region, accountId } = this.call.scope;
    return `arn:aws:dynamodb:${region}:${accountId}:table/${table.name}${index ? `/index/${index}` : ''}`;
  }

  /**
   * The answer to a call throttled on a hot key: on-demand, ThrottlingException (as live errors show), with
   * the throttling reason (ThrottlingReason: KeyRangeThroughputExceeded, per table or index, read or write);
   * provisioned, ProvisionedThroughputExceededException. The SDKs retry both.
   */
  throttled(table: TableSchema, charge: Charge): void {
    const reasons = [
      {
        reason: `${charge.index ? 'Index' : 'Table'}${charge.access === 'read' ? 'Read' : 'Write'}KeyRangeThroughputExceeded`,
        resource: this.arn(table, charge.index),
      },
    ];
    if (table.onDemand) {
      sendJson(this.call.res, 400, {
        __type: 'com.amazon.coral.availability#ThrottlingException',
        message: charge.index && charge.access === 'write' ? HOT_INDEX_MESSAGE : HOT_KEY_MESSAGE,
        throttlingReasons: reasons,
      });
      return;
    }
    sendJson(this.call.res, 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: charge.index ? PROVISIONED_INDEX_MESSAGE : PROVISIONED_TABLE_MESSAGE,
      ThrottlingReasons: reasons,
    });
  }

  /** Answers the call with `body` (200), in DynamoDB Local's stead. */
  answer(body: Json): void {
    sendJson(this.call.res, 200, body);
  }

  /**
   * A PartiQL statement of a batch throttled on a hot key: its entry of the batch's Responses (the call itself
   * succeeds), `ThrottlingError` with the hot-key message on an on-demand table, in the shape captured from
   * DynamoDB (boto/boto3#3834: `{'Error': {'Code': 'ThrottlingError', 'Message': 'Throughput exceeds ...'},
   * 'TableName': ...}`); `ProvisionedThroughputExceeded` on a provisioned table (BatchStatementError's codes).
   */
  throttledStatement(table: TableSchema, charge: Charge): Json {
    const hotIndex = charge.index !== undefined;
    const error = table.onDemand
      ? { Code: 'ThrottlingError', Message: hotIndex ? HOT_INDEX_MESSAGE : HOT_KEY_MESSAGE }
      : {
          Code: 'ProvisionedThroughputExceeded',
          Message: hotIndex ? PROVISIONED_INDEX_MESSAGE : PROVISIONED_TABLE_MESSAGE,
        };
    return { Error: error, TableName: table.name };
  }

  /**
   * A transaction throttled on a hot key: TransactionCanceledException, its reasons in the order of its
   * items, `ThrottlingError` (on-demand) or `ProvisionedThroughputExceeded` for those on the hot key and
   * `None` for the others, in the shape captured from DynamoDB. The SDKs do not retry it.
   */
  cancelledForThrottling(table: TableSchema, charge: Charge, hits: readonly boolean[]): void {
    const code = table.onDemand ? 'ThrottlingError' : 'ProvisionedThroughputExceeded';
    const message = table.onDemand
      ? charge.index && charge.access === 'write'
        ? HOT_INDEX_MESSAGE
        : `${HOT_KEY_MESSAGE}.`
      : charge.index
        ? PROVISIONED_INDEX_MESSAGE
        : PROVISIONED_TABLE_MESSAGE;
    const reasons = hits.map((hit) => (hit ? { Code: code, Message: message } : { Code: 'None' }));
    sendJson(this.call.res, 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      CancellationReasons: reasons,
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    });
  }
}
