import { once } from 'node:events';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localIsoDateTime } from '../../functions/domain/analytics';
import { analyticsCsv } from '../../functions/domain/analytics-csv';

// How a value is written into an analytics CSV: local times with their offsets, and cells no spreadsheet runs.

describe('localIsoDateTime', () => {
  it.each([
    // A 24-hour clock and the UTC offset, west, east and on UTC.
    { utc: '2025-06-02T18:07:09Z', zone: 'America/Chicago', local: '2025-06-02T13:07:09-05:00' },
    { utc: '2025-06-02T18:07:09Z', zone: 'Asia/Tokyo', local: '2025-06-03T03:07:09+09:00' },
    { utc: '2025-06-02T18:07:09Z', zone: 'UTC', local: '2025-06-02T18:07:09+00:00' },
    // Offsets of half and quarter hours, east and west.
    { utc: '2025-01-15T12:00:00Z', zone: 'Asia/Kolkata', local: '2025-01-15T17:30:00+05:30' },
    { utc: '2025-01-15T12:00:00Z', zone: 'Asia/Kathmandu', local: '2025-01-15T17:45:00+05:45' },
    { utc: '2025-01-15T12:00:00Z', zone: 'America/St_Johns', local: '2025-01-15T08:30:00-03:30' },
    // Midnight as 00, not 24.
    { utc: '2025-06-01T15:05:00Z', zone: 'Asia/Tokyo', local: '2025-06-02T00:05:00+09:00' },
    { utc: '2025-01-01T06:00:00Z', zone: 'America/Chicago', local: '2025-01-01T00:00:00-06:00' },
    // Milliseconds dropped, not rounded up.
    { utc: '2025-06-02T13:00:00.999Z', zone: 'America/Chicago', local: '2025-06-02T08:00:00-05:00' },
    // Spring forward, the last second before and the first after. Berlin, 2026-03-29: 02:00 CET becomes
    // 03:00 CEST at 01:00 UTC; New York, 2026-03-08: 02:00 EST becomes 03:00 EDT at 07:00 UTC.
    { utc: '2026-03-29T00:59:59Z', zone: 'Europe/Berlin', local: '2026-03-29T01:59:59+01:00' },
    { utc: '2026-03-29T01:00:00Z', zone: 'Europe/Berlin', local: '2026-03-29T03:00:00+02:00' },
    { utc: '2026-03-08T06:59:59Z', zone: 'America/New_York', local: '2026-03-08T01:59:59-05:00' },
    { utc: '2026-03-08T07:00:00Z', zone: 'America/New_York', local: '2026-03-08T03:00:00-04:00' },
    // The two passes of the repeated fall-back hour told apart. Berlin, 2026-10-25: 02:30 happens at 00:30
    // UTC in CEST and again at 01:30 UTC in CET; New York, 2026-11-01: 01:30 at 05:30 UTC in EDT and again
    // at 06:30 UTC in EST.
    { utc: '2026-10-25T00:30:00Z', zone: 'Europe/Berlin', local: '2026-10-25T02:30:00+02:00' },
    { utc: '2026-10-25T01:30:00Z', zone: 'Europe/Berlin', local: '2026-10-25T02:30:00+01:00' },
    { utc: '2026-11-01T05:30:00Z', zone: 'America/New_York', local: '2026-11-01T01:30:00-04:00' },
    { utc: '2026-11-01T06:30:00Z', zone: 'America/New_York', local: '2026-11-01T01:30:00-05:00' },
  ])('writes $utc in $zone as $local', ({ utc, zone, local }) => {
    expect(localIsoDateTime(Date.parse(utc), zone)).toBe(local);
  });

  it('names the instant it renders, to the second, in any zone', () => {
    const zones = [
      'Europe/Berlin',
      'America/New_York',
      'America/Chicago',
      'Australia/Lord_Howe',
      'Asia/Tokyo',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...zones),
        (epochMs, zone) => {
          const rendered = localIsoDateTime(epochMs, zone);
          expect(rendered).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
          expect(Date.parse(rendered)).toBe(epochMs - (epochMs % 1000));
        },
      ),
    );
  });
});

describe('analyticsCsv', () => {
  /** The file a writer makes of `names`, one row each, read back by a CSV reader (csv-parse). */
  async function roundTrip(names: (string | number)[]): Promise<{ text: string; rows: string[][] }> {
    const csv = analyticsCsv(['route_name', 'count']);
    const chunks: string[] = [];
    csv.on('data', (chunk: Buffer | string) => chunks.push(String(chunk)));
    for (const name of names) csv.write({ route_name: name, count: 1 });
    csv.end();
    await once(csv, 'end');
    const text = chunks.join('');
    // As a spreadsheet reads it: any line break outside quotes ends a row.
    return { text, rows: parse(text, { record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true }) };
  }

  it('quotes a cell holding a line break, so that no reader starts a row inside it', async () => {
    const names = ['x\n=1+1', 'y\r=2+2', 'z\r\n@SUM(A1)'];
    const { rows } = await roundTrip(names);
    expect(rows).toEqual([['route_name', 'count'], ...names.map((name) => [name, '1'])]);
    expect(rows.slice(1).every(([cell]) => !/^['"]?[=+\-@]/.test(cell ?? ''))).toBe(true);
  });

  it('writes every formula start behind a quote mark: csv-stringify’s, `|` first, and any behind white space', async () => {
    const names = ['=1+1', '+1', '-2+3', '@A1', '\t=1', '|cmd', ' =1+1', '  +1', '\n=1', ' -1', '｜x'];
    const { rows } = await roundTrip(names);
    expect(rows.slice(1).map(([cell]) => cell)).toEqual(
      names.map((name) => (name === '｜x' ? name : `'${name}`)),
    );
  });

  it('leaves ordinary text, text with inner formula characters and numbers as they are', async () => {
    const { rows, text } = await roundTrip(['North loop', ' North', 'a=b', 'x|y', -5]);
    expect(rows.slice(1).map(([cell]) => cell)).toEqual(['North loop', ' North', 'a=b', 'x|y', '-5']);
    expect(text.endsWith('\r\n')).toBe(true);
  });
});
