import { beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { queryItems } from '../../functions/data/client';
import { routeKeys } from '../../functions/data/routes';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { exampleRoute, importRoute, waitForImport } from '../support/routes';

/**
 * A waypoint's `recipient` (docs/api.md, Customer notifications): taken by the import and revisions with a
 * clear error per field, stored sealed (no phone or email in the table), answered masked to the account and
 * never to the driver app.
 */

const fx = useTestApi('recipients');
let acme: TestAccount;
let globex: TestAccount;

beforeAll(async () => {
  acme = await fx.account('Acme');
  globex = await fx.account('Globex');
});

const PHONE = '+14155550123';
const EMAIL = 'dana.customer@example.com';

function routeWithRecipient(id: string, recipient: Record<string, unknown>, driverId?: string) {
  const route = exampleRoute(id, { waypoints: 2, driverId });
  (route.waypoints[0] as Record<string, unknown>).recipient = recipient;
  return route;
}

async function waypointsOf(key: string, routeId: string) {
  const response = await fx.as(key, 'GET', `/dcs/dc-1/routes/${routeId}/waypoints`);
  return (expectSuccess(response, routes.listWaypoints) as { waypoints: { recipient: unknown }[] }).waypoints;
}

/** The route's waypoint items as the table holds them. */
async function storedWaypoints(accountId: string, routeId: string) {
  const { items } = await queryItems(
    {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': routeKeys.route(accountId, routeId).pk },
      ConsistentRead: true,
    },
    1000,
  );
  return items.filter((item) => item.entity === 'WAYPOINT');
}

const asText = (value: unknown) =>
  JSON.stringify(value, (_key, field) =>
    field instanceof Uint8Array ? Buffer.from(field).toString('latin1') : field,
  );

async function revise(routeId: string, route: unknown) {
  const accepted = await fx.as(acme.key, 'PUT', `/dcs/dc-1/routes/${routeId}/revision`, { route });
  const { txid } = expectSuccess(accepted, routes.reviseRoute, 202) as { txid: string };
  const finished = await waitForImport(fx.api.url, acme.key, 'dc-1', txid);
  return (
    expectSuccess(finished, routes.getImportStatus) as { changes: { waypoints: { changed: string[] } } }
  ).changes;
}

describe('a waypoint’s recipient', () => {
  it('is stored sealed and answered masked to the account', async () => {
    const route = routeWithRecipient('rcp-1', {
      name: 'Dana Customer',
      phone: PHONE,
      email: EMAIL,
      locale: 'de-AT',
    });
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    const [first, second] = await waypointsOf(acme.key, 'rcp-1');
    expect(first?.recipient).toEqual({
      name: 'Dana Customer',
      phone: '+1415•••0123',
      email: 'd•••@example.com',
      locale: 'de-AT',
    });
    expect(second?.recipient).toBeNull();

    const stored = await storedWaypoints(acme.accountId, 'rcp-1');
    const text = asText(stored);
    expect(text).not.toContain(PHONE);
    expect(text).not.toContain('5550123');
    expect(text).not.toContain('dana.customer');
    const withRecipient = stored.find((item) => item.waypoint_id === 'rcp-1-wp-0');
    const sealed = (withRecipient?.recipient as { sealed: Record<string, unknown> } | undefined)?.sealed;
    expect(sealed?.v).toBe(1);
    expect(sealed?.ciphertext).toBeInstanceOf(Uint8Array);
  });

  it('defaults its locale to en and takes an email alone', async () => {
    await importRoute(fx.api.url, acme.key, 'dc-1', routeWithRecipient('rcp-2', { email: EMAIL }));
    const [first] = await waypointsOf(acme.key, 'rcp-2');
    expect(first?.recipient).toEqual({ name: null, phone: null, email: 'd•••@example.com', locale: 'en' });
  });

  it.each([
    [{ phone: '0415 555 0123' }, 'route.waypoints.0.recipient.phone', 'E.164'],
    [{ phone: '+1415555012345678' }, 'route.waypoints.0.recipient.phone', 'E.164'],
    [{ email: 'not an address' }, 'route.waypoints.0.recipient.email', 'email address'],
    [{ email: `${'a'.repeat(250)}@example.com` }, 'route.waypoints.0.recipient.email', '254'],
    [{ email: EMAIL, locale: 'english' }, 'route.waypoints.0.recipient.locale', 'BCP 47'],
    [{ name: 'Dana' }, 'route.waypoints.0.recipient.phone', 'a phone or an email'],
  ])('refuses %j with 1006 naming %s, never echoing the value', async (recipient, field, words) => {
    const response = await fx.as(acme.key, 'POST', '/dcs/dc-1/invoiced-routes', {
      route: routeWithRecipient('rcp-bad', recipient),
    });
    const message = expectError(response, 400, 1006);
    expect(message).toContain(field);
    expect(message).toContain(words);
    for (const value of Object.values(recipient)) if (value.length > 6) expect(message).not.toContain(value);
  });

  it('counts an unchanged recipient as unchanged in a revision, and a new one as a change', async () => {
    const recipient = { phone: PHONE, email: EMAIL, locale: 'en' };
    const route = routeWithRecipient('rcp-3', recipient);
    await importRoute(fx.api.url, acme.key, 'dc-1', route);
    const same = await revise('rcp-3', route);
    expect(same.waypoints.changed).toEqual([]);
    const changed = await revise(
      'rcp-3',
      routeWithRecipient('rcp-3', { ...recipient, email: 'other@example.com' }),
    );
    expect(changed.waypoints.changed).toEqual(['rcp-3-wp-0']);
    const [first] = await waypointsOf(acme.key, 'rcp-3');
    expect(first?.recipient).toMatchObject({ email: 'o•••@example.com', phone: '+1415•••0123' });
  });

  it('is never answered to the driver app', async () => {
    const token = await fx.createDriver(acme.key, 'dc-1', 'rcp-driver', 'Ana');
    await importRoute(
      fx.api.url,
      acme.key,
      'dc-1',
      routeWithRecipient('rcp-4', { phone: PHONE }, 'rcp-driver'),
    );
    const response = await fx.as(token, 'GET', '/driver/routes');
    expect(response.status, response.text).toBe(200);
    expect(response.text).toContain('rcp-4-wp-0');
    expect(response.text).not.toContain('recipient');
    expect(response.text).not.toContain('0123');
  });

  it('is another account’s to read: 404 for Globex', async () => {
    expectError(await fx.as(globex.key, 'GET', '/dcs/dc-1/routes/rcp-1/waypoints'), 404, 3003);
  });
});
