import { describe, expect, it } from 'vitest';
import { EVENT_RECORD_PATTERN } from '../../functions/data/events';
import { SUBSCRIBABLE_EVENTS } from '../../functions/models/event-catalog';
import { matchesPattern } from '../../local/event-sources/event-pattern';

/** EventBridge event patterns, as the local pipe and event source mappings filter records with them. */
describe('matchesPattern', () => {
  const insert = (entity: string, eventName = 'INSERT', eventType: string | null = 'ROUTE_CREATED') => ({
    eventName,
    dynamodb: {
      NewImage: {
        entity: { S: entity },
        id: { S: 'x' },
        ...(eventType === null ? {} : { event_type: { S: eventType } }),
      },
    },
  });

  it('lets through exactly what the pipe’s filter names: new event items', () => {
    expect(matchesPattern(EVENT_RECORD_PATTERN, insert('EVENT'))).toBe(true);
    expect(matchesPattern(EVENT_RECORD_PATTERN, insert('DRIVER'))).toBe(false);
    expect(matchesPattern(EVENT_RECORD_PATTERN, insert('EVENT', 'MODIFY'))).toBe(false);
    expect(matchesPattern(EVENT_RECORD_PATTERN, { eventName: 'INSERT', dynamodb: {} })).toBe(false);
  });

  it('lets through event items of every type of the event catalog a webhook can subscribe to, and no other', () => {
    for (const type of SUBSCRIBABLE_EVENTS) {
      expect(matchesPattern(EVENT_RECORD_PATTERN, insert('EVENT', 'INSERT', type)), type).toBe(true);
    }
    // PING is never an event item (only the test call sends it); unknown or missing types have no subscriber.
    for (const type of ['PING', 'ROUTE_EXPLODED', 'route_created', null]) {
      expect(matchesPattern(EVENT_RECORD_PATTERN, insert('EVENT', 'INSERT', type)), String(type)).toBe(false);
    }
  });

  it('matches a list value when any element matches, and a missing key never', () => {
    expect(matchesPattern({ tags: ['a'] }, { tags: ['b', 'a'] })).toBe(true);
    expect(matchesPattern({ tags: ['a'] }, { tags: ['b'] })).toBe(false);
    expect(matchesPattern({ missing: ['a'] }, {})).toBe(false);
  });

  it.each([
    [{ n: [{ prefix: 'ab' }] }, { n: 'abc' }, true],
    [{ n: [{ prefix: 'ab' }] }, { n: 'cab' }, false],
    [{ n: [{ suffix: 'bc' }] }, { n: 'abc' }, true],
    [{ n: [{ 'equals-ignore-case': 'ABC' }] }, { n: 'abc' }, true],
    [{ n: [{ wildcard: 'a*c' }] }, { n: 'abbbc' }, true],
    [{ n: [{ numeric: ['>', 0, '<=', 5] }] }, { n: 5 }, true],
    [{ n: [{ numeric: ['>', 0, '<=', 5] }] }, { n: 6 }, false],
    [{ n: [{ exists: true }] }, { n: 1 }, true],
    [{ n: [{ exists: false }] }, {}, true],
    [{ n: [{ exists: false }] }, { n: 1 }, false],
    [{ n: [{ 'anything-but': ['x', 'y'] }] }, { n: 'z' }, true],
    [{ n: [{ 'anything-but': ['x', 'y'] }] }, { n: 'x' }, false],
    [{ n: [{ 'anything-but': { prefix: 'x' } }] }, { n: 'xa' }, false],
  ])('applies %j to %j: %s', (pattern, value, expected) => {
    expect(matchesPattern(pattern, value)).toBe(expected);
  });

  it('throws on an operator it does not know rather than matching loosely', () => {
    expect(() => matchesPattern({ n: [{ cidr: '10.0.0.0/8' }] }, { n: '10.0.0.1' })).toThrow(/not supported/);
  });
});
