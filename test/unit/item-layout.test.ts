import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiFields, camelFields } from '../../functions/shared/field-names';
import { RESOURCE_ENV } from '../../functions/shared/resources';
import { type Item, itemSize, tableWriteUnits } from '../../local/aws-proxy/dynamodb-capacity';

// The data modules read the table name when loaded; nothing here talks to DynamoDB.
beforeAll(() => {
  process.env[RESOURCE_ENV.table] ??= 'item-layout-test';
});

describe('entity codecs', () => {
  it('read back what they write, absent lists as empty ones, and skip fields kept by update expressions', async () => {
    const { codec, sortedSet } = await import('../../functions/data/codec');
    const thing = codec<{ id: string; nameAttributes: string[]; note?: string; tags: string[] }>({
      id: { attr: 'thing_id' },
      nameAttributes: { absent: [] },
      note: {},
      tags: { read: sortedSet },
    });
    const item = thing.toItem({ id: 't-1', nameAttributes: ['a'], note: undefined, tags: ['x'] });
    expect(item).toEqual({ thing_id: 't-1', name_attributes: ['a'], note: undefined });
    expect(thing.fromItem({ thing_id: 't-1', tags: new Set(['b', 'a']) })).toEqual({
      id: 't-1',
      nameAttributes: [],
      note: undefined,
      tags: ['a', 'b'],
    });
  });

  it('store a nested record flat under a prefix, and read it as absent when none of its attributes is', async () => {
    const { codec } = await import('../../functions/data/codec');
    const inner = codec<{ linkExpiresAt: number; receivedAt?: number }>({
      linkExpiresAt: {},
      receivedAt: {},
    });
    const outer = codec<{ id: string; upload?: { linkExpiresAt: number; receivedAt?: number } }>({
      id: {},
      upload: { flat: { prefix: 'upload_', codec: inner } },
    });
    expect(outer.attributes).toEqual(['id', 'upload_link_expires_at', 'upload_received_at']);
    expect(outer.toItem({ id: 'a', upload: { linkExpiresAt: 5 } })).toEqual({
      id: 'a',
      upload_link_expires_at: 5,
      upload_received_at: undefined,
    });
    expect(outer.toItem({ id: 'a' })).toEqual({ id: 'a' });
    expect(outer.fromItem({ id: 'a', upload_link_expires_at: 5, upload_received_at: 7 })).toEqual({
      id: 'a',
      upload: { linkExpiresAt: 5, receivedAt: 7 },
    });
    expect(outer.fromItem({ id: 'a' })).toEqual({ id: 'a', upload: undefined });
  });

  it('keep the stored layout of import records (attribute names deployed data is read by)', async () => {
    const { pendingImportItem } = await import('../../functions/data/imports');
    const upload = pendingImportItem({
      accountId: 'acc',
      dcId: 'dc',
      txid: 'imp_1',
      status: 'PENDING',
      payloadKey: 'uploads/acc/imp_1.json',
      trackingKey: 'key',
      createdAt: 1_000_000,
      deadline: 9,
      upload: { linkExpiresAt: 5, arrivalDeadline: 6 },
    });
    expect(JSON.parse(JSON.stringify(upload))).toEqual({
      pk: 'IMPORT#acc/imp_1',
      sk: 'IMPORT',
      entity: 'IMPORT',
      account_id: 'acc',
      dc_id: 'dc',
      txid: 'imp_1',
      status: 'PENDING',
      payload_key: 'uploads/acc/imp_1.json',
      tracking_key: 'key',
      created_at: 1_000_000,
      deadline: 9,
      upload_link_expires_at: 5,
      upload_arrival_deadline: 6,
      expires_at: 1000 + 30 * 86_400,
    });
    const posted = pendingImportItem({
      accountId: 'acc',
      dcId: 'dc',
      txid: 'imp_2',
      routeId: 'R-1',
      status: 'PENDING',
      payloadKey: 'imports/acc/imp_2.json',
      createdAt: 1_000_000,
      deadline: 9,
    });
    expect(JSON.parse(JSON.stringify(posted))).toEqual({
      pk: 'IMPORT#acc/imp_2',
      sk: 'IMPORT',
      entity: 'IMPORT',
      account_id: 'acc',
      dc_id: 'dc',
      txid: 'imp_2',
      route_id: 'R-1',
      status: 'PENDING',
      payload_key: 'imports/acc/imp_2.json',
      created_at: 1_000_000,
      deadline: 9,
      expires_at: 1000 + 30 * 86_400,
    });
  });

  it('keep the stored layout of route rows (attribute names deployed data is read by)', async () => {
    const { routeRowItems } = await import('../../functions/data/route-rows');
    const rows = routeRowItems(
      'acc',
      'R-1',
      [
        {
          sequence: 0,
          id: 'W-1',
          customerId: 'C-1',
          location: { latitude: 1, longitude: 2 },
          serviceTimeMinutes: 5,
          timeWindows: [{ start: 1, end: 2 }],
          invoiceIds: ['I-1'],
        },
      ],
      [
        [
          {
            id: 'I-1',
            waypointId: 'W-1',
            paymentMethod: 'CASH',
            nameAttributes: [{ key: 'k', value: 'v' }],
            items: [
              {
                id: 'T-1',
                sku: 'S',
                quantity: 2,
                displayUnitOfMeasure: 'CASE',
                totalPriceCents: 300,
                currency: 'EUR',
              },
            ],
          },
        ],
      ],
    );
    const defined = (item: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined));
    expect(rows.map(defined)).toEqual([
      {
        pk: 'ROUTE#acc/R-1',
        sk: 'WP#00000',
        entity: 'WAYPOINT',
        waypoint_id: 'W-1',
        sequence: 0,
        customer_id: 'C-1',
        location: { latitude: 1, longitude: 2 },
        service_time_minutes: 5,
        time_windows: [{ start: 1, end: 2 }],
        invoice_ids: ['I-1'],
      },
      {
        pk: 'ROUTE#acc/R-1',
        sk: 'I#00000#0000',
        entity: 'INVOICE',
        invoice_id: 'I-1',
        waypoint_id: 'W-1',
        payment_method: 'CASH',
        invoice_name_attributes: [{ key: 'k', value: 'v' }],
      },
      {
        pk: 'ROUTE#acc/R-1',
        sk: 'I#00000#0000#00000',
        entity: 'ITEM',
        item_id: 'T-1',
        invoice_id: 'I-1',
        waypoint_id: 'W-1',
        sku: 'S',
        quantity: 2,
        display_unit_of_measure: 'CASE',
        total_price_cents: 300,
        currency: 'EUR',
      },
    ]);
  });
});

describe('claim items', () => {
  it('cost one write unit with the longest ids in the key and as the route id (1 KB per unit)', async () => {
    const { newClaimItem } = await import('../../functions/data/claims');
    const { randomId } = await import('../../functions/shared/crypto');
    const { MAX_ID_BYTES, MAX_ID_CHARS } = await import('../../functions/models/common');
    // 128 characters of 3 bytes each: an id at both of its limits.
    const longestId = '€'.repeat(MAX_ID_CHARS);
    expect(Buffer.byteLength(longestId)).toBe(MAX_ID_BYTES);
    const item = newClaimItem(
      randomId('acc_'),
      { kind: 'ACCOUNTING_RECORD', id: longestId },
      { txid: randomId('imp_'), routeId: longestId },
    ).Put.Item;
    const size = itemSize(marshall(item) as Item);
    expect(size).toBeLessThanOrEqual(1024);
    expect(tableWriteUnits(undefined, marshall(item) as Item)).toBe(1);
  });
});

describe('driver items', () => {
  it('keep the detection state’s layout (read by deployed functions) and one write unit with 36-character ids', async () => {
    const { driverItem, replaceRecentVisitsItem } = await import('../../functions/data/drivers');
    const { keptVisits } = await import('../../functions/domain/arrival-detection');
    const id = (name: string) => `${name}-`.padEnd(36, '0');
    const routeId = id('route');
    const driver = {
      accountId: 'acc_0123456789abcdef',
      dcId: id('dc'),
      driverId: id('driver'),
      name: 'Dana Driver of the north-west side',
      loginToken: `drv_${'x'.repeat(43)}`,
      location: { timestamp: 1_764_000_000_000, latitude: 41.8781234, longitude: -87.6298765 },
      startedRouteIds: [routeId],
      assignedRouteIds: [routeId],
      routesVersion: 3,
      recentVisits: [],
      visitsVersion: 0,
      createdAt: 1_764_000_000_000,
      updatedAt: 1_764_000_000_000,
    };
    // A day of stops: the state keeps the open visit and the latest closed ones.
    const day = Array.from({ length: 40 }, (_, stop) => ({
      routeId,
      waypointId: id(`stop-${stop}`),
      arrivedAt: 1_764_000_000_000 + stop * 600_000,
      departedAt: stop === 39 ? undefined : 1_764_000_000_000 + stop * 600_000 + 300_000,
    }));
    const visits = keptVisits(day);
    const update = replaceRecentVisitsItem({ ...driver, visitsVersion: 40 }, visits).Update;
    const stored = update?.ExpressionAttributeValues?.[':visits'];
    expect(update?.UpdateExpression).toBe('SET recent_visits = :visits, visits_version = :next');
    expect(stored).toEqual(
      visits.map((visit) => ({
        route_id: visit.routeId,
        waypoint_id: visit.waypointId,
        arrived_at: visit.arrivedAt,
        departed_at: visit.departedAt,
      })),
    );
    const item = {
      ...driverItem(driver),
      started_route_ids: new Set([routeId]),
      assigned_route_ids: new Set([routeId]),
      routes_version: 3,
      recent_visits: stored,
      visits_version: 41,
    };
    const wire = marshall(item, { removeUndefinedValues: true }) as Item;
    expect(itemSize(wire)).toBeLessThanOrEqual(1024);
    expect(tableWriteUnits(wire, wire)).toBe(1);
  });
});

describe('field names', () => {
  it('show a record in the API with snake_case names, in the order asked, absent fields as null', () => {
    const view = apiFields({ totalPriceCents: 3, sku: undefined as string | undefined, id: 'x' }, [
      'id',
      'sku',
      'totalPriceCents',
    ]);
    expect(JSON.stringify(view)).toBe('{"id":"x","sku":null,"total_price_cents":3}');
  });

  it('name the fields of a wire record as code does', () => {
    expect(camelFields({ service_time_minutes: 5, id: 'w' })).toEqual({ serviceTimeMinutes: 5, id: 'w' });
  });
});
