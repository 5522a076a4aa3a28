/*
 * The one list of what may differ between the local runtime's events and the captures of real AWS events
 * (test/fixtures/aws/), and why: test/e2e/aws-conformance.test.ts fails on any other difference.
 */

export const DIFFERENCES = {
  /**
   * Headers the captured requests did not send but AWS added: CloudFront's (the edge-optimized endpoint's
   * distribution) and API Gateway's own forwarding and tracing headers. The local gateway adds none; nothing
   * in functions/ reads them. They are taken out of the capture before comparing; every other header must
   * be there, with its value.
   */
  headersAwsAdds: [
    'CloudFront-Forwarded-Proto',
    'CloudFront-Is-Desktop-Viewer',
    'CloudFront-Is-Mobile-Viewer',
    'CloudFront-Is-SmartTV-Viewer',
    'CloudFront-Is-Tablet-Viewer',
    'CloudFront-Viewer-ASN',
    'CloudFront-Viewer-Country',
    'Via',
    'X-Amz-Cf-Id',
    'X-Amzn-Trace-Id',
    'X-Forwarded-For',
    'X-Forwarded-Port',
    'X-Forwarded-Proto',
  ],
  /** REST proxy and authorizer events (the local API mirrors the captured one: id, stage, account, region). */
  rest: {
    'requestContext.requestId': 'a new id for every request',
    'requestContext.extendedRequestId': 'a new id for every request',
    'requestContext.requestTime': 'when the request came',
    'requestContext.requestTimeEpoch': 'when the request came',
    'requestContext.deploymentId': "the stage's deployment, new at every deployment",
    'requestContext.identity.sourceIp': "the caller's address: 127.0.0.1 here",
    'requestContext.authorizer.integrationLatency': 'how long the authorizer ran',
  },
  /** Lambda's SQS event (the message S3 sent). */
  sqs: {
    'Records.0.messageId': 'a new id for every message',
    'Records.0.receiptHandle': 'a new handle for every receive',
    'Records.0.body': "the message (compared on its own: the S3 notification's fields)",
    'Records.0.md5OfBody': "the body's MD5",
    'Records.0.attributes.SentTimestamp': 'when the message was sent',
    'Records.0.attributes.ApproximateFirstReceiveTimestamp': 'when the message was received',
    'Records.0.attributes.SenderId': "the sender's principal: S3's service role on AWS, the emulator's here",
    'Records.0.eventSourceARN': 'our queue, in our account and region',
    'Records.0.awsRegion': 'our region',
  },
  /** The S3 event notification in the message body (event structure 2.1). */
  s3: {
    'Records.0.awsRegion': "our bucket's region",
    'Records.0.eventTime': 'when the object was created',
    'Records.0.userIdentity.principalId': 'who uploaded: the presigned link\u2019s signer here',
    'Records.0.requestParameters.sourceIPAddress': "the uploader's address",
    'Records.0.responseElements.x-amz-request-id': "the PUT's request id",
    'Records.0.responseElements.x-amz-id-2': "the PUT's extended request id",
    'Records.0.s3.configurationId': "the bucket's notification configuration id (CDK names it)",
    'Records.0.s3.bucket.name': 'our bucket',
    'Records.0.s3.bucket.arn': 'our bucket',
    'Records.0.s3.bucket.ownerIdentity.principalId': "the bucket owner's canonical id",
    'Records.0.s3.object.key': 'our upload key',
    'Records.0.s3.object.size': 'our upload',
    'Records.0.s3.object.eTag': 'our upload',
    'Records.0.s3.object.sequencer': "the object's place in the bucket's events",
  },
  /** The pipe's message: a DynamoDB stream record of a new event item. */
  pipe: {
    eventID: 'a new id for every stream record',
    awsRegion: "our table's region",
    eventSourceARN: "our table's stream",
    'dynamodb.ApproximateCreationDateTime': 'when the item was written (whole epoch seconds on both)',
    'dynamodb.SequenceNumber': "the record's place in its shard",
    'dynamodb.SizeBytes': 'our item',
  },
} as const;

/** The DynamoDB images of a stream record are the items' own data: only their shape is compared. */
export const ITEM_IMAGES = ['dynamodb.Keys', 'dynamodb.NewImage'];

/** The capture without the headers AWS adds (DIFFERENCES.headersAwsAdds). */
export function withoutAddedHeaders<T extends { headers: unknown; multiValueHeaders?: unknown }>(
  event: T,
): T {
  const added = new Set<string>(DIFFERENCES.headersAwsAdds);
  const keep = (map: unknown) =>
    Object.fromEntries(Object.entries(map as Record<string, unknown>).filter(([name]) => !added.has(name)));
  return { ...event, headers: keep(event.headers), multiValueHeaders: keep(event.multiValueHeaders) };
}
