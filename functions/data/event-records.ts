/**
 * The table-stream records that carry events (kept apart from events.ts, which needs the table's
 * environment): new event items only, as an EventBridge event pattern on the DynamoDB stream record.
 * The EventBridge Pipe filters with it on AWS; the local stream poller applies the same rule.
 */
export const EVENT_RECORD_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { entity: { S: ['EVENT'] } } },
} as const;
