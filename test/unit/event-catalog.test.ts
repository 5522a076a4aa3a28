import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, eventSchemas, SUBSCRIBABLE_EVENTS } from '../../functions/models/event-catalog';

describe('the event catalog', () => {
  it('lists the stream schemas’ types in their order, then PING', () => {
    const { StreamEvent, CatalogEvent } = eventSchemas();
    expect(SUBSCRIBABLE_EVENTS).toEqual(StreamEvent.options.map((option) => option.shape.type.value));
    expect(EVENT_TYPES).toEqual(CatalogEvent.options.map((option) => option.shape.type.value));
    expect(EVENT_TYPES.at(-1)).toBe('PING');
  });

  it('builds its schemas once', () => {
    expect(eventSchemas()).toBe(eventSchemas());
  });
});
