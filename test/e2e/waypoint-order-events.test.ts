import { beforeAll, describe, expect, it } from 'vitest';
import * as events from '../../functions/api/events/index';
import * as routes from '../../functions/api/routes/index';
import { expectSuccess } from '../support/http';
import { exampleRoute, importRoute } from '../support/routes';
import type { ReceivedDelivery, WebhookReceiver } from '../support/webhook-receiver';
import { waitUntil } from '../support/webhook-receiver';
import { type CreatedWebhook, expectHookTime, expectSigned, useWebhookApi } from '../support/webhooks';

/**
 * A new visiting order reaches clients: ROUTE_UPDATED with `order_changed: true`, signed to a webhook and in
 * the account's event feed (GET /events), for a reorder by hand and for an optimization applied, through the
 * whole pipeline (table stream -> events queue -> fan-out -> deliveries; the feed pipe -> feed queue ->
 * append-to-feed). What the reorder and the optimization do to the route is in waypoint-order.test.ts and
 * optimizations.test.ts.
 */

const hooks = useWebhookApi('waypoint-order-events', { streams: true });

/** An optimization's worker and the two pipelines take seconds; 120 s leaves them more than 3x that when busy. */
const PIPELINE_DEADLINE_MS = 120_000;

type FeedEvent = Record<string, unknown> & { event: string; event_id: string };

/** ROUTE_UPDATED deliveries of the route received so far, in the order received. */
const routeUpdates = (receiver: WebhookReceiver, routeId: string): ReceivedDelivery[] =>
  receiver.deliveries.filter(
    (delivery) => delivery.json.event === 'ROUTE_UPDATED' && delivery.json.route_id === routeId,
  );

/** Waits for the route's `count`th ROUTE_UPDATED at the receiver and answers it. */
const nthRouteUpdate = (receiver: WebhookReceiver, routeId: string, count: number) =>
  waitUntil(
    `ROUTE_UPDATED number ${count} of ${routeId} at the receiver`,
    () => routeUpdates(receiver, routeId)[count - 1],
    PIPELINE_DEADLINE_MS,
  );

/** Waits until the account's feed lists the event, and answers it as the feed does. */
async function inFeed(routeId: string, eventId: string): Promise<FeedEvent> {
  return waitUntil(
    `${eventId} in the feed`,
    async () => {
      const query = new URLSearchParams({ route_id: routeId, type: 'ROUTE_UPDATED' });
      const response = await hooks.asAccount('GET', `/events?${query}`);
      const page = expectSuccess(response, events.listEvents) as { events: FeedEvent[] };
      return page.events.find((event) => event.event_id === eventId);
    },
    PIPELINE_DEADLINE_MS,
  );
}

/** A test waits on up to three of those in turn (the optimization, the delivery, the feed). */
const TEST_TIMEOUT_MS = 3 * PIPELINE_DEADLINE_MS;

describe('ROUTE_UPDATED when the visiting order changes', { timeout: TEST_TIMEOUT_MS }, () => {
  let receiver: WebhookReceiver;
  let webhook: CreatedWebhook;

  beforeAll(async () => {
    receiver = await hooks.receiver();
    webhook = await hooks.createWebhook(receiver.url, ['ROUTE_UPDATED']);
  });

  it('after PUT …/waypoint-order: order_changed, signed to the webhook and in the feed with the same body', async () => {
    const route = exampleRoute('order-events-1', { waypoints: 4 });
    await importRoute(hooks.fx.api.url, hooks.accounts.acme.key, 'dc-1', route);
    const order = route.waypoints.map((waypoint) => waypoint.id).reverse();
    const before = Date.now();
    const response = await hooks.asAccount('PUT', `/dcs/dc-1/routes/${route.id}/waypoint-order`, {
      waypoint_ids: order,
    });
    const { route: changed } = expectSuccess(response, routes.reorderWaypoints) as {
      route: { version: number; waypoint_ids: string[] };
    };
    expect(changed.waypoint_ids).toEqual(order);

    const delivery = await nthRouteUpdate(receiver, route.id, 1);
    const noIds = { added: [], removed: [], changed: [] };
    expect(delivery.json).toMatchObject({
      event: 'ROUTE_UPDATED',
      dc_id: 'dc-1',
      route_id: route.id,
      version: changed.version,
      changes: { waypoints: noIds, invoices: noIds, items: noIds },
      order_changed: true,
    });
    expect(delivery.json).not.toHaveProperty('optimization_id');
    expectHookTime(delivery, before);
    expectSigned(delivery, webhook, 'ROUTE_UPDATED');

    const fed = await inFeed(route.id, delivery.json.event_id as string);
    // The same bytes, keys in the same order, as every delivery of the event.
    const { cursor: _cursor, ...body } = fed;
    expect(delivery.body).toBe(JSON.stringify(body));
  });

  it('after an optimization applied: order_changed and the optimization_id, to the webhook and in the feed', async () => {
    // Stops along a line, imported out of order: the optimizer puts them in line.
    const route = exampleRoute('order-events-2', { waypoints: 5 });
    const inLine = route.waypoints.map((waypoint, index) => ({
      ...waypoint,
      location: { latitude: 41.86 + index * 0.02, longitude: -87.65 },
    }));
    const shuffled = [inLine[2], inLine[0], inLine[4], inLine[1], inLine[3]] as typeof inLine;
    await importRoute(hooks.fx.api.url, hooks.accounts.acme.key, 'dc-1', { ...route, waypoints: shuffled });

    const path = `/dcs/dc-1/routes/${route.id}`;
    const asked = await hooks.asAccount('POST', `${path}/optimizations`, { apply: true });
    const { optimization_id } = expectSuccess(asked, routes.requestOptimization, 202) as {
      optimization_id: string;
    };
    const optimization = await waitUntil(
      `optimization ${optimization_id} ended`,
      async () => {
        const read = await hooks.asAccount('GET', `${path}/optimizations/${optimization_id}`);
        const { optimization } = expectSuccess(read, routes.getOptimization) as {
          optimization: { status: string; applied: boolean; waypoint_ids: string[] };
        };
        return optimization.status === 'PENDING' ? undefined : optimization;
      },
      PIPELINE_DEADLINE_MS,
    );
    expect(optimization).toMatchObject({ status: 'SUCCEEDED', applied: true });
    const ids = inLine.map((waypoint) => waypoint.id);
    expect([ids, [...ids].reverse()]).toContainEqual(optimization.waypoint_ids);

    const delivery = await nthRouteUpdate(receiver, route.id, 1);
    expect(delivery.json).toMatchObject({ order_changed: true, optimization_id });
    expectSigned(delivery, webhook, 'ROUTE_UPDATED');
    const fed = await inFeed(route.id, delivery.json.event_id as string);
    expect(fed).toMatchObject({ order_changed: true, optimization_id });
  });
});
