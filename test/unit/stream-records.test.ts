import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { putEventItem, readStreamRecord } from '../../functions/data/events';
import * as channels from '../../functions/models/channels';
import { configure } from '../../functions/shared/config';

/**
 * The events queue's messages are the table stream's records of new items, as the pipe sends them; what their
 * images hold is read in data/events.ts, from the item the producers write (putEventItem).
 */

/** The stream record of a new item, as a message of the events queue, parsed by its channel. */
const messageOf = (item: Record<string, unknown>) => {
  const [record] = channels.events.parse(
    JSON.stringify({
      eventName: 'INSERT',
      dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }), StreamViewType: 'NEW_IMAGE' },
    }),
  );
  if (!record) throw new Error('no record');
  return record;
};

const startedItem = () => {
  configure({ TABLE_NAME: 'stream-records-test' });
  return putEventItem({
    accountId: 'acc_0123456789abcdef',
    dcId: 'dc 1',
    routeId: 'R 1',
    sequence: 2,
    type: 'ROUTE_STARTED',
    details: { driver_id: 'd-1', started_timestamp: 1_795_438_800_000 },
    occurredAt: 1_795_438_800_123,
  }).Put.Item;
};

describe('reading a stream record of the events queue', () => {
  it('reads an event item as its producer wrote it', () => {
    const item = startedItem();
    expect(readStreamRecord(messageOf(item))).toEqual({
      kind: 'event',
      accountId: 'acc_0123456789abcdef',
      event: {
        event_id: item.event_id,
        type: 'ROUTE_STARTED',
        dc_id: 'dc 1',
        route_id: 'R 1',
        sequence: 2,
        occurred_at: 1_795_438_800_123,
        details: { driver_id: 'd-1', started_timestamp: 1_795_438_800_000 },
      },
    });
  });

  it('reads an event without a route (an upload failed before its route id was read) with route_id null', () => {
    const { route_id: _, ...item } = startedItem();
    expect(readStreamRecord(messageOf(item))).toMatchObject({ kind: 'event', event: { route_id: null } });
  });

  it('reads an event item written before sequences with sequence null', () => {
    const { sequence: _, ...item } = startedItem();
    expect(readStreamRecord(messageOf(item))).toMatchObject({ kind: 'event', event: { sequence: null } });
  });

  it('tells an event item of a type outside the catalog from any other item', () => {
    const item = startedItem();
    expect(readStreamRecord(messageOf({ ...item, event_type: 'ROUTE_LOST' }))).toEqual({
      kind: 'eventOutsideCatalog',
      eventId: item.event_id,
      eventType: 'ROUTE_LOST',
    });
    expect(readStreamRecord(messageOf({ pk: 'ROUTE#acc/R 1', sk: 'ROUTE', entity: 'ROUTE' }))).toEqual({
      kind: 'other',
    });
    // The record of a removal has no new image.
    expect(readStreamRecord({ dynamodb: {} })).toEqual({ kind: 'other' });
  });
});
