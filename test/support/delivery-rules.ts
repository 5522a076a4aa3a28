import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import * as analytics from '../../functions/api/analytics/index';
import * as dcs from '../../functions/api/dcs/index';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import * as tracking from '../../functions/api/tracking/index';
import { db } from '../../functions/data/client';
import { type WebhookEvent, webhookBodyOf } from '../../functions/models/event-catalog';
import { type AttemptBody, at, attemptPath, type DriverAppClient, nth, type routeOf } from './driver-app';
import type { TestApiFixture } from './fixtures';
import { expectSuccess } from './http';
import { waitForImport } from './routes';
import { scanItems } from './table-scans';
import { waitUntil } from './webhook-receiver';

/*
 * The delivery rules' tests' helpers (test/e2e/delivery-rules.test.ts): routes with rules on a stop, and what
 * those tests send and read.
 */

export type Route = ReturnType<typeof routeOf>;

/** `route` with `requirements` on its waypoint `index` and barcodes on that waypoint's items. */
export function withRules(
  route: Route,
  index: number,
  requirements: Record<string, unknown> | undefined,
): Route {
  return {
    ...route,
    waypoints: route.waypoints.map((waypoint, position) =>
      position !== index
        ? waypoint
        : {
            ...waypoint,
            ...(requirements && { requirements }),
            invoices: waypoint.invoices.map((invoice) => ({
              ...invoice,
              items: invoice.items.map((item) => ({ ...item, barcodes: [`BC-${item.id}`] })),
            })),
          },
    ),
  };
}

/** True when `value`, or any string inside it, is exactly `text`. */
export const holds = (value: unknown, text: string): boolean =>
  typeof value === 'string'
    ? value === text
    : Array.isArray(value)
      ? value.some((inner) => holds(inner, text))
      : typeof value === 'object' && value !== null && !(value instanceof Uint8Array)
        ? Object.values(value).some((inner) => holds(inner, text))
        : false;

/** `route` with `barcodes` on every item of every stop. */
export function withBarcodes(route: Route, barcodes: string[]) {
  return {
    ...route,
    waypoints: route.waypoints.map((waypoint) => ({
      ...waypoint,
      invoices: waypoint.invoices.map((invoice) => ({
        ...invoice,
        items: invoice.items.map((item) => ({ ...item, barcodes })),
      })),
    })),
  };
}

/** A visit of a stop at minute `minute` (`at`) that states nothing but its outcome. */
export const plainVisit = (id: string, minute: number, status: AttemptBody['status'] = 'SUCCESSFUL') => ({
  id,
  timestamp: at(minute),
  status,
});

/** The SUCCESSFUL visit of the PIN stop at minute `minute` (`at`), giving `pin` if there is one. */
export const pinVisit = (minute: number, pin?: string): AttemptBody => ({
  id: 'rules-pin-visit',
  timestamp: at(minute),
  status: 'SUCCESSFUL',
  ...(pin !== undefined && { pin }),
});

/** The webhook body an ERP gets for the route's ROUTE_STARTED event with these `details`. */
export function routeStartedWebhookBody(routeId: string, details: unknown) {
  return webhookBodyOf({
    event_id: 'evt_1',
    type: 'ROUTE_STARTED',
    dc_id: 'dc-1',
    route_id: routeId,
    sequence: 2,
    occurred_at: 1,
    details,
  } as unknown as WebhookEvent) as unknown as { waypoints: Record<string, unknown>[] };
}

/** Waypoint rules an import refuses with 1006: what is wrong, the rules, the message naming the field. */
export const REFUSED_REQUIREMENTS: [string, Record<string, unknown>, RegExp][] = [
  ['photos above 10', { photos: 11 }, /^route\.waypoints\.0\.requirements\.photos: /],
  ['photos not whole', { photos: 1.5 }, /^route\.waypoints\.0\.requirements\.photos: /],
  ['minimum_age 0', { minimum_age: 0 }, /^route\.waypoints\.0\.requirements\.minimum_age: /],
  ['a rule that does not exist', { signtaure: true }, /^route\.waypoints\.0\.requirements.*signtaure/],
  ['pin not a boolean', { pin: 'yes' }, /^route\.waypoints\.0\.requirements\.pin: /],
  ['minimum_age above 125', { minimum_age: 126 }, /^route\.waypoints\.0\.requirements\.minimum_age: /],
];

/** Item barcodes an import refuses with 1006: what is wrong, the barcodes, the message naming the field. */
export const REFUSED_BARCODES: [string, string[], RegExp][] = [
  ['11 barcodes', Array.from({ length: 11 }, (_, index) => `B${index}`), /barcodes: /],
  ['a barcode twice', ['B1', 'B1'], /barcodes\.1: "B1" is listed twice|barcodes\.1: 'B1' is listed twice/],
  ['an empty barcode', [''], /barcodes\.0: /],
];

/** DC default rules the settings refuse with 1006, and the field the message names. */
export const REFUSED_DEFAULTS: [unknown, string][] = [
  [{ photos: -1 }, 'delivery_requirements.photos'],
  [{ minimum_age: 126 }, 'delivery_requirements.minimum_age'],
  [{ scan_items: 'true' }, 'delivery_requirements.scan_items'],
  [{ pin: 1 }, 'delivery_requirements.pin'],
  [{ minimum_age: 18.5 }, 'delivery_requirements.minimum_age'],
];

/** Scans an attempt refuses with 1006: what is wrong, the attempt's scans, the start of the message. */
export const REFUSED_SCANS: [string, Record<string, unknown>, string][] = [
  [
    'more than 200 scans',
    { scans: Array.from({ length: 201 }, () => ({ value: 'A', timestamp: at(1) })) },
    'scans: ',
  ],
  ['an empty scan value', { scans: [{ value: '', timestamp: at(1) }] }, 'scans.0.value: '],
  ['a scan without a timestamp', { scans: [{ value: 'A' }] }, 'scans.0.timestamp: '],
];

/**
 * The day of the age check's visits: 02:00 UTC within the last day, still the day before in the DC's zone
 * (America/Chicago), so that one date of birth is 18 years before the UTC day and not the DC's.
 */
export function ageCheckDay() {
  const DAY = 24 * 3_600_000;
  // 02:00 UTC, within the last day: still the day before in the DC's zone (America/Chicago).
  const today = new Date(Math.floor(Date.now() / DAY) * DAY + 2 * 3_600_000);
  const visitAt = (today.getTime() > Date.now() ? today.getTime() - DAY : today.getTime()) as number;
  const utcDay = new Date(visitAt).toISOString().slice(0, 10);
  const dcDay = new Date(visitAt - DAY).toISOString().slice(0, 10);
  const yearsBefore = (day: string, years: number) => `${Number(day.slice(0, 4)) - years}${day.slice(4)}`;
  const visit = (id: string, status: AttemptBody['status'], dateOfBirth?: string): AttemptBody => ({
    id,
    timestamp: visitAt,
    status,
    ...(status === 'FAILED' && { reason: { code: 'UNDER_AGE', message: 'no adult at the door' } }),
    ...(dateOfBirth !== undefined && { age_check: { method: 'ID_CHECKED', date_of_birth: dateOfBirth } }),
  });
  return { visitAt, utcDay, dcDay, yearsBefore, visit };
}

/**
 * The helpers of the file's API `fx`, its driver app client `client()` (made in beforeAll) and its driver's
 * login `token`.
 */
export function deliveryRulesHelpers(fx: TestApiFixture, client: () => DriverAppClient, token: string) {
  /**
   * Sends a revision of the started `route` in which its second stop requires `requirements` (its first, already
   * visited, as it was), and waits for the revision to be applied.
   */
  async function reviseWithRulesAtSecondStop(route: Route, requirements: Record<string, unknown>) {
    const revision = withRules(route, 1, requirements);
    const accepted = await client().asAccount('PUT', `/dcs/dc-1/routes/${route.id}/revision`, {
      route: {
        ...revision,
        waypoints: revision.waypoints.map((waypoint, index) => (index === 0 ? route.waypoints[0] : waypoint)),
      },
    });
    const { txid } = expectSuccess(accepted, routes.reviseRoute, 202) as { txid: string };
    const ended = await waitForImport(fx.api.url, client().account.key, 'dc-1', txid);
    expect(ended.status, ended.text).toBe(200);
  }

  const settingsPath = (dcId: string) => `/dcs/${dcId}/settings`;

  async function setDefaults(requirements: Record<string, unknown>, dcId = 'dc-1') {
    const response = await client().asAccount('PATCH', settingsPath(dcId), {
      delivery_requirements: requirements,
    });
    return (expectSuccess(response, dcs.updateDcSettings) as { settings: { delivery_requirements: unknown } })
      .settings.delivery_requirements;
  }

  /** A proof of `type` of the waypoint, uploaded and checked: its id once AVAILABLE. */
  async function availableProof(routeId: string, waypointId: string, type: 'PHOTO' | 'SIGNATURE') {
    const bytes = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(120, 7),
    ]);
    const asked = await client().asDriver(
      token,
      'POST',
      `/driver/routes/${routeId}/waypoints/${waypointId}/proofs`,
      {
        type,
        content_type: 'image/png',
        size_bytes: bytes.length,
      },
    );
    const proof = (
      expectSuccess(asked, driverApp.createDriverProof) as {
        proof: { id: string; upload_url: string; upload_headers: Record<string, string> };
      }
    ).proof;
    // The headers the link was signed with (If-None-Match: * among them), as a driver app sends them; fetch
    // sets the Content-Length of the body itself.
    const { 'Content-Length': _, ...headers } = proof.upload_headers;
    const put = await fetch(proof.upload_url, { method: 'PUT', body: new Uint8Array(bytes), headers });
    expect(put.status).toBe(200);
    await waitUntil(`proof ${proof.id} checked`, async () => {
      const listed = await client().asAccount(
        'GET',
        `/dcs/dc-1/routes/${routeId}/waypoints/${waypointId}/proofs`,
      );
      const { proofs } = expectSuccess(listed, routes.listWaypointProofs) as {
        proofs: { id: string; status: string }[];
      };
      return proofs.find((candidate) => candidate.id === proof.id && candidate.status === 'AVAILABLE');
    });
    return proof.id;
  }

  const attempt = (routeId: string, waypointId: string, body: AttemptBody, driverToken = token) =>
    client().asDriver(driverToken, 'POST', attemptPath(routeId, waypointId), body);

  /** The waypoint has no attempt and the route no WAYPOINT_STATUS_CHANGED: a refused attempt wrote nothing. */
  async function expectNothingRecorded(routeId: string, waypointId: string) {
    expect((await client().readWaypoint('dc-1', routeId, waypointId)).attempts).toEqual([]);
    expect(await client().eventTypes(routeId)).not.toContain('WAYPOINT_STATUS_CHANGED');
  }

  /** The path of the tracking page of the route's waypoint `index` (its `tracking_url` under the API). */
  async function trackingPathOf(dcId: string, routeId: string, index: number): Promise<string> {
    const url = nth(await client().readWaypoints(dcId, routeId), index).tracking_url as string;
    expect(url.startsWith(`${fx.api.url}/track/`)).toBe(true);
    return url.slice(fx.api.url.length);
  }

  /** The code the tracking page of the route's waypoint `index` shows its customer (null: none). */
  async function trackedPin(dcId: string, routeId: string, index: number): Promise<string | null> {
    const response = await fx.request('GET', await trackingPathOf(dcId, routeId, index));
    return (expectSuccess(response, tracking.getTrackingPage) as { pin: string | null }).pin;
  }

  /** The entities of the items of this file's table that hold `text` as a string value anywhere. */
  async function entitiesHolding(text: string): Promise<string[]> {
    const items = await scanItems({}, fx.api.tableName);
    return items.filter((item) => holds(item, text)).map((item) => String(item.entity));
  }

  /** The stored hash of each PIN of the route, by waypoint id: what a revision must keep or change. */
  async function pinHashes(routeId: string): Promise<Record<string, string>> {
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: fx.api.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pin)',
        ExpressionAttributeValues: {
          ':pk': `ROUTE#${client().account.accountId}/${routeId}`,
          ':pin': 'PIN#',
        },
        ConsistentRead: true,
      }),
    );
    return Object.fromEntries(Items.map((item) => [item.waypoint_id as string, item.pin_hash as string]));
  }

  const resetPath = (dcId: string, routeId: string, waypointId: string) =>
    `/dcs/${dcId}/routes/${routeId}/waypoints/${waypointId}/reset-pin`;

  /** The attempt analytics of a finished route, one row per attempt. */
  async function attemptAnalytics(routeId: string): Promise<Record<string, unknown>[]> {
    const response = await client().asAccount('GET', `/dcs/dc-1/routes/${routeId}/analytics/attempts`);
    return (expectSuccess(response, analytics.getAttemptAnalytics) as { attempt_analytics: [] })
      .attempt_analytics;
  }

  return {
    reviseWithRulesAtSecondStop,
    settingsPath,
    setDefaults,
    availableProof,
    attempt,
    expectNothingRecorded,
    trackingPathOf,
    trackedPin,
    entitiesHolding,
    pinHashes,
    resetPath,
    attemptAnalytics,
  };
}
