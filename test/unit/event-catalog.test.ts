import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPES,
  eventSchemas,
  SUBSCRIBABLE_EVENTS,
  WEBHOOK_BODY_SCHEMAS,
  type WebhookEvent,
  webhookBody,
  webhookBodyOf,
} from '../../functions/models/event-catalog';
import { trackingToken, trackingUrl } from '../../functions/models/tracking-links';
import * as z from '../../functions/shared/zod';

describe('the event catalog', () => {
  it('lists the stream schemas’ types in their order, then PING', () => {
    const { StreamEvent, CatalogEvent } = eventSchemas();
    expect(SUBSCRIBABLE_EVENTS).toEqual(
      StreamEvent.def.options.map((option) => option.shape.type.def.values[0]),
    );
    expect(EVENT_TYPES).toEqual(CatalogEvent.def.options.map((option) => option.shape.type.def.values[0]));
    expect(EVENT_TYPES.at(-1)).toBe('PING');
  });

  it('builds its schemas once', () => {
    expect(eventSchemas()).toBe(eventSchemas());
  });
});

describe('the webhook body of the events that give tracking links', () => {
  const links = { api_url: 'https://api.example.com/v1/', key: Buffer.alloc(32, 7).toString('base64url') };
  const link = (waypointId: string) => trackingUrl(links.api_url, trackingToken(links.key, waypointId));
  const event = (type: 'ROUTE_STARTED' | 'ROUTE_ETAS_CHANGED', details: Record<string, unknown>) =>
    ({
      event_id: 'evt_1',
      type,
      dc_id: 'dc-1',
      route_id: 'R-1',
      sequence: 2,
      occurred_at: 1,
      details,
    }) as WebhookEvent;

  it('ROUTE_STARTED gives every waypoint’s tracking page, and never the key it is made with', () => {
    const started = event('ROUTE_STARTED', {
      driver_id: 'd-1',
      started_timestamp: 2,
      waypoint_ids: ['a', 'b'],
      tracking_links: links,
    });
    const body = webhookBodyOf(started);
    expect(body).toEqual({
      event: 'ROUTE_STARTED',
      hook_timestamp_millis: 1,
      dc_id: 'dc-1',
      route_id: 'R-1',
      event_id: 'evt_1',
      sequence: 2,
      driver_id: 'd-1',
      started_timestamp: 2,
      waypoints: [
        { waypoint_id: 'a', tracking_url: link('a') },
        { waypoint_id: 'b', tracking_url: link('b') },
      ],
    });
    expect(link('a')).toMatch(/^https:\/\/api\.example\.com\/v1\/track\/[\w-]{22}$/);
    expect(webhookBody(started)).not.toContain(links.key);
    expect(z.catchall(WEBHOOK_BODY_SCHEMAS.ROUTE_STARTED, z.never()).safeParse(body).success).toBe(true);
  });

  it('gives a waypoint a revision added the page of its own sequence: an id removed and added again, a new link', () => {
    const started = event('ROUTE_STARTED', {
      driver_id: 'd-1',
      started_timestamp: 2,
      waypoint_ids: ['a', 'b'],
      tracking_links: { ...links, sequences: { b: 7 } },
    });
    const pages = (webhookBodyOf(started) as { waypoints: { tracking_url: string }[] }).waypoints.map(
      (waypoint) => waypoint.tracking_url,
    );
    const added = trackingUrl(links.api_url, trackingToken(links.key, 'b', 7));
    expect(pages).toEqual([link('a'), added]);
    expect(added).not.toBe(link('b'));
    expect(added).not.toBe(trackingUrl(links.api_url, trackingToken(links.key, 'b', 8)));
    expect(added).toMatch(/\/track\/[\w-]{22}$/);
  });

  it('ROUTE_STARTED gives the PIN of each stop that requires one, and no pin field to the others', () => {
    const started = event('ROUTE_STARTED', {
      driver_id: 'd-1',
      started_timestamp: 2,
      waypoint_ids: ['a', 'b', 'c'],
      tracking_links: links,
      pins: [null, '048213', null],
    });
    const body = webhookBodyOf(started);
    expect(body).toMatchObject({
      waypoints: [
        { waypoint_id: 'a', tracking_url: link('a') },
        { waypoint_id: 'b', tracking_url: link('b'), pin: '048213' },
        { waypoint_id: 'c', tracking_url: link('c') },
      ],
    });
    const [first, , third] = (body as { waypoints: Record<string, unknown>[] }).waypoints;
    expect(Object.keys(first ?? {})).not.toContain('pin');
    expect(Object.keys(third ?? {})).not.toContain('pin');
    expect(Object.keys(body)).not.toContain('pins');
    expect(z.catchall(WEBHOOK_BODY_SCHEMAS.ROUTE_STARTED, z.never()).safeParse(body).success).toBe(true);
  });

  it('ROUTE_ETAS_CHANGED gives each ETA its waypoint’s tracking page', () => {
    const changed = event('ROUTE_ETAS_CHANGED', {
      etas: [{ waypoint_id: 'b', eta_timestamp: 3 }],
      tracking_links: links,
    });
    const body = webhookBodyOf(changed);
    expect(body).toMatchObject({ etas: [{ waypoint_id: 'b', eta_timestamp: 3, tracking_url: link('b') }] });
    expect(Object.keys(body)).not.toContain('tracking_links');
    expect(z.catchall(WEBHOOK_BODY_SCHEMAS.ROUTE_ETAS_CHANGED, z.never()).safeParse(body).success).toBe(true);
  });

  it('gives null links for a route imported before tracking links, and no waypoints for an event from before them', () => {
    expect(
      webhookBodyOf(event('ROUTE_ETAS_CHANGED', { etas: [{ waypoint_id: 'b', eta_timestamp: 3 }] })),
    ).toMatchObject({ etas: [{ waypoint_id: 'b', eta_timestamp: 3, tracking_url: null }] });
    expect(webhookBodyOf(event('ROUTE_STARTED', { driver_id: 'd-1', started_timestamp: 2 }))).toMatchObject({
      waypoints: [],
    });
  });
});
