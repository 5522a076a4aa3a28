import { SUBSCRIBABLE_EVENTS } from '../models/event-catalog';

/**
 * The table-stream records that carry events (kept apart from events.ts, which needs the table's
 * environment): new event items of the event catalog's types, as an EventBridge event pattern on the
 * DynamoDB stream record. The EventBridge Pipe filters with it on AWS; the local stream poller applies the
 * same pattern, read from the synthesized pipe.
 */
export const EVENT_RECORD_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { entity: { S: ['EVENT'] }, event_type: { S: [...SUBSCRIBABLE_EVENTS] } } },
} as const;
