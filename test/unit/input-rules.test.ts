import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/api/index';
import { MAX_EVENT_RECORD_BYTES, putEventItem, streamRecordBytes } from '../../functions/data/events';
import {
  FreeText,
  Id,
  Label,
  Location,
  MAX_ID_BYTES,
  MAX_TIMESTAMP,
  MIN_TIMESTAMP,
  Name,
  ReportedTimestamp,
  StorableNumber,
  Timestamp,
} from '../../functions/models/common';
import type { StreamEvent } from '../../functions/models/event-catalog';
import { IMPORT_LIMITS, MAX_LISTED_ID_BYTES } from '../../functions/models/import-model';
import { configure } from '../../functions/shared/config';
import { messageBatches } from '../../functions/shared/queues';
import { quote, quoteList } from '../../functions/shared/quote';
import type * as z from '../../functions/shared/zod';

/** The characters SQS carries: #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF. */
const SQS_CHARACTERS = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

const message = (schema: z.ZodMiniType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;

/** Any single code point, lone surrogates included, biased to the ones the rules are about. */
const anyCharacter = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
  fc.integer({ min: 0, max: 0xa0 }).map((cp) => String.fromCodePoint(cp)),
  fc.integer({ min: 0xfdc0, max: 0xffff }).map((cp) => String.fromCodePoint(cp)),
  fc
    .integer({ min: 0, max: 16 })
    .map((plane) => String.fromCodePoint(plane * 0x10000 + 0xfffe + (plane % 2))),
);

describe('text: what every string field and path parameter accepts', () => {
  const texts = { Id, Label: Label(2000), FreeText: FreeText(2000), Name };

  it.each(Object.entries(texts))('%s accepts only text SQS can carry, whatever is sent', (_, schema) => {
    fc.assert(
      fc.property(fc.string({ unit: anyCharacter, maxLength: 60 }), (value) => {
        if (schema.safeParse(value).success) expect(value).toMatch(SQS_CHARACTERS);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('free text accepts every character but noncharacters and control characters other than \\t \\n \\r', () => {
    const allowed = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 1 })
      .filter((char) => !/[\p{Cc}\p{Noncharacter_Code_Point}]/u.test(char) || /[\t\n\r]/.test(char));
    fc.assert(
      fc.property(fc.string({ unit: allowed, maxLength: 60 }), (value) => {
        expect(FreeText(100).parse(value)).toBe(value);
      }),
      { numRuns: 2000, seed: 8 },
    );
  });

  it.each([
    ['U+FFFF', '\uFFFF', 'U+FFFF (a Unicode noncharacter) at character 1'],
    ['U+FFFE', 'ab\uFFFE', 'U+FFFE (a Unicode noncharacter) at character 3'],
    ['U+FDD0', '\uFDD0', 'U+FDD0 (a Unicode noncharacter)'],
    ['U+FDEF', '\uFDEF', 'U+FDEF (a Unicode noncharacter)'],
    ['U+1FFFE', '\u{1FFFE}', 'U+1FFFE (a Unicode noncharacter)'],
    ['U+10FFFF', '😀\u{10FFFF}', 'U+10FFFF (a Unicode noncharacter) at character 2'],
    ['a lone high surrogate', 'a\uD800', 'U+D800 (a lone surrogate) at character 2'],
    ['a lone low surrogate', '\uDC00b', 'U+DC00 (a lone surrogate)'],
    ['NUL', 'a\u0000', 'U+0000 (a control character)'],
    ['DEL', '\u007F', 'U+007F (a control character)'],
    ['a C1 control', '\u0085', 'U+0085 (a control character)'],
  ])('refuses %s in ids, labels and free text, naming the character', (_, value, expected) => {
    for (const schema of Object.values(texts)) expect(message(schema, value)).toContain(expected);
  });

  it('keeps tabs and line breaks in free text only', () => {
    for (const value of ['a\tb', 'a\nb', 'a\r\nb', 'a\u2028b', 'a\u2029b']) {
      expect(FreeText(10).parse(value)).toBe(value);
      expect(Label(10).safeParse(value).success, JSON.stringify(value)).toBe(false);
      expect(Id.safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
  });

  it.each([
    'Zoë Ødegård',
    '東京 DC',
    'مرحبا',
    'e\u0301',
    '👩‍👩‍👧‍👦',
    '🏳️‍🌈',
    '\uE000\u{F0000}',
    '\uFFFD',
    '\uFEFFx',
    'bag A',
  ])('passes %s through unchanged', (value) => {
    for (const schema of [Label(100), FreeText(100), Name]) expect(schema.parse(value)).toBe(value);
    expect(Id.parse(`x${value}x`)).toBe(`x${value}x`);
  });

  it('counts characters (code points), not UTF-16 units: 200 emoji are a name, 201 are not', () => {
    expect(Name.parse('😀'.repeat(200))).toHaveLength(400);
    expect(message(Name, '😀'.repeat(201))).toBe('must be 1..200 characters long; this one has 201');
  });

  it('never echoes the value it refuses', () => {
    const huge = `${'x'.repeat(1_000_000)}\uFFFF`;
    for (const schema of Object.values(texts)) expect((message(schema, huge) ?? '').length).toBeLessThan(100);
  });
});

describe('Id', () => {
  it.each([
    'R 2026-11-23',
    'a%b?c#d+e',
    '...',
    '.hidden',
    'Bäckerei Müller',
    'x'.repeat(128),
    '東'.repeat(128),
    '😀'.repeat(96),
  ])('accepts %s', (value) => {
    expect(Id.parse(value)).toBe(value);
  });

  it.each([
    ['', 'must be 1..128 characters long; this one has 0'],
    ['x'.repeat(129), 'must be 1..128 characters long; this one has 129'],
    ['a/b', 'must not contain "/" (ids travel in URL paths)'],
    ['.', 'must not be "." or ".."'],
    ['..', 'must not be "." or ".."'],
    [' R-1', 'must not start or end with whitespace'],
    ['R-1 ', 'must not start or end with whitespace'],
    ['\u00A0R-1', 'must not start or end with whitespace'],
    ['   ', 'must not start or end with whitespace'],
    ['a\tb', 'U+0009 (a control character)'],
    [
      '😀'.repeat(97),
      `must be at most ${MAX_ID_BYTES} bytes in UTF-8 (ids become database keys); this one has 388`,
    ],
    ['😀'.repeat(128), 'this one has 512'],
  ])('refuses %j: %s', (value, expected) => {
    expect(message(Id, value)).toContain(expected);
  });
});

describe('numbers DynamoDB can store, times in range', () => {
  it.each([0, -0, 1e-130, -1e-130, 41.5, 1e9, Number.MAX_SAFE_INTEGER])('stores %d', (value) => {
    expect(StorableNumber.safeParse(value).success).toBe(true);
  });

  it.each([1e-131, -1e-200, 5e-324, Number.MAX_SAFE_INTEGER + 2, 1e126, Number.POSITIVE_INFINITY])(
    'refuses %d',
    (value) => {
      expect(StorableNumber.safeParse(value).success).toBe(false);
    },
  );

  it('refuses coordinates DynamoDB would refuse, and ones out of range', () => {
    expect(Location.safeParse({ latitude: 1e-200, longitude: 0 }).success).toBe(false);
    expect(Location.safeParse({ latitude: 0, longitude: -1e-131 }).success).toBe(false);
    expect(Location.safeParse({ latitude: 90.000001, longitude: 0 }).success).toBe(false);
    expect(Location.parse({ latitude: -0, longitude: 1e-130 })).toEqual({ latitude: -0, longitude: 1e-130 });
  });

  it('takes times from 2000-01-01 to 2100-01-01 only', () => {
    expect(Timestamp.parse(MIN_TIMESTAMP)).toBe(Date.parse('2000-01-01T00:00:00Z'));
    expect(Timestamp.parse(MAX_TIMESTAMP)).toBe(Date.parse('2100-01-01T00:00:00Z'));
    for (const bad of [MIN_TIMESTAMP - 1, MAX_TIMESTAMP + 1, 1_700_000_000, 1e15, 8.64e15 + 1, -1, 1.5]) {
      expect(Timestamp.safeParse(bad).success, String(bad)).toBe(false);
    }
    expect(message(Timestamp, 1_700_000_000)).toBe('must be a time from 2000-01-01 (epoch milliseconds)');
    expect(ReportedTimestamp.safeParse(Date.now() + 3_600_000).success).toBe(false);
  });
});

describe('quote', () => {
  it('quotes a short value as it is and cuts a long one to 64 characters and an ellipsis', () => {
    expect(quote('R-1')).toBe("'R-1'");
    expect(quote('😀'.repeat(100))).toBe(`'${'😀'.repeat(64)}…'`);
    expect(quote('x'.repeat(5_800_000)).length).toBe(67);
  });

  it('writes characters that cannot travel or print as escapes', () => {
    expect(quote('a\uFFFFb\uD800c\u0007')).toBe("'a\\u{FFFF}b\\u{D800}c\\u{0007}'");
  });

  it('quotes five values of a list and counts the rest', () => {
    expect(quoteList(['a', 'b'])).toBe("'a', 'b'");
    expect(quoteList(['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toBe("'a', 'b', 'c', 'd', 'e' and 2 more");
  });
});

describe('messageBatches', () => {
  it('sends 10 messages a batch, in order', () => {
    const bodies = Array.from({ length: 25 }, (_, i) => String(i));
    const batches = messageBatches(bodies);
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(batches.flat()).toEqual(bodies);
  });

  it('keeps a batch within SendMessageBatch’s 1 MiB, whatever the messages weigh', () => {
    const bodies = Array.from({ length: 10 }, (_, i) => `${i}${'é'.repeat(100_000)}`);
    const batches = messageBatches(bodies);
    for (const batch of batches)
      expect(batch.reduce((sum, body) => sum + Buffer.byteLength(body), 0)).toBeLessThanOrEqual(1_048_576);
    expect(batches.flat()).toEqual(bodies);
    expect(batches.map((batch) => batch.length)).toEqual([5, 5]);
  });
});

describe('lists of ids stored in one item or sent in one message', () => {
  /** The tracking links an event carries, for an API behind the longest custom domain DNS takes. */
  const trackingLinks = {
    api_url: `https://${'d'.repeat(253)}/${'s'.repeat(128)}/`,
    key: Buffer.alloc(32).toString('base64url'),
  };

  /** The item of an event about the route with the longest ids there are, as the producer writes it. */
  function longestRouteEventItem(event: StreamEvent) {
    configure({ TABLE_NAME: 'unit' });
    return putEventItem({
      ...event,
      accountId: 'acc_0123456789abcdef',
      dcId: 'd'.repeat(128),
      routeId: 'r'.repeat(128),
      occurredAt: MAX_TIMESTAMP,
    }).Put.Item;
  }

  /** The ROUTE_ETAS_CHANGED event item of a route whose every waypoint has an ETA. */
  async function etasEvent(waypointIds: string[]) {
    return longestRouteEventItem({
      type: 'ROUTE_ETAS_CHANGED',
      details: {
        etas: waypointIds.map((id) => ({ waypoint_id: id, eta_timestamp: MAX_TIMESTAMP })),
        tracking_links: trackingLinks,
      },
    });
  }

  /**
   * The ROUTE_STARTED event item of a route, listing every waypoint for their tracking links, and a PIN for
   * every one of them (each stop requires one).
   */
  async function startedEvent(waypointIds: string[]) {
    return longestRouteEventItem({
      type: 'ROUTE_STARTED',
      details: {
        driver_id: 'v'.repeat(128),
        started_timestamp: MAX_TIMESTAMP,
        waypoint_ids: waypointIds,
        tracking_links: trackingLinks,
        pins: waypointIds.map(() => '123456'),
      },
    });
  }

  /** `count` ids whose bytes (as JSON writes them) add up to `total`. */
  const idsOf = (count: number, total: number) =>
    Array.from({ length: count }, (_, i) =>
      'é'.repeat(12).padEnd(Math.floor(total / count) - 12 + (i < total % count ? 1 : 0), 'x'),
    );

  it('a route at the waypoint id limit emits ROUTE_ETAS_CHANGED and ROUTE_STARTED records within MAX_EVENT_RECORD_BYTES', async () => {
    const ids = idsOf(IMPORT_LIMITS.waypoints, MAX_LISTED_ID_BYTES);
    expect(ids.reduce((sum, id) => sum + Buffer.byteLength(id), 0)).toBe(MAX_LISTED_ID_BYTES);
    expect(streamRecordBytes(await etasEvent(ids))).toBeLessThanOrEqual(MAX_EVENT_RECORD_BYTES);
    expect(streamRecordBytes(await startedEvent(ids))).toBeLessThanOrEqual(MAX_EVENT_RECORD_BYTES);
  });

  it('would not fit the tracking links themselves: the events carry the key they are made with instead', async () => {
    const ids = idsOf(IMPORT_LIMITS.waypoints, MAX_LISTED_ID_BYTES);
    const event = (await etasEvent(ids)) as { details: { etas: Record<string, unknown>[] } };
    const url = `${trackingLinks.api_url}track/${'t'.repeat(22)}`;
    const withLinks = {
      ...event,
      details: { etas: event.details.etas.map((eta) => ({ ...eta, tracking_url: url })) },
    };
    expect(streamRecordBytes(withLinks)).toBeGreaterThan(MAX_EVENT_RECORD_BYTES);
  });

  it('without the limit, 2,000 ids of 128 characters (which pass the id rule) would make an event the producer refuses', async () => {
    const ids = Array.from({ length: IMPORT_LIMITS.waypoints }, (_, i) => String(i).padStart(128, 'x'));
    await expect(etasEvent(ids)).rejects.toThrow(/ROUTE_ETAS_CHANGED event of \d+ bytes as a stream record/);
  });
});

describe('limit: every list reads a decimal whole number only', () => {
  const lists = endpoints.filter((endpoint) => endpoint.request.query?.shape.limit);

  it('is asked by every paged list', () => {
    expect(lists.map((endpoint) => endpoint.operationId).length).toBeGreaterThanOrEqual(8);
  });

  it.each(lists.map((endpoint) => [endpoint.operationId, endpoint] as const))(
    '%s: refuses hexadecimal, exponent, signed, spaced, fractional and empty limits; takes decimal digits',
    (_, endpoint) => {
      const query = endpoint.request.query as z.ZodMiniType;
      for (const limit of ['0x10', '1e3', '1E1', '+5', ' 10', '10 ', '10.0', '', '0b11', '0o7', 'Infinity']) {
        expect(query.safeParse({ limit }).success, `limit=${JSON.stringify(limit)}`).toBe(false);
      }
      expect(message(query, { limit: '0x10' })).toBe('must be a whole number in decimal digits');
      expect(query.safeParse({ limit: '16' }).data).toMatchObject({ limit: 16 });
      expect(query.safeParse({ limit: '016' }).data).toMatchObject({ limit: 16 });
    },
  );
});
