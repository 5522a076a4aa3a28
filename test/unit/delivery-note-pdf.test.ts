import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import type { DeliveryNoteContent } from '../../functions/domain/delivery-note';
import { renderDeliveryNote } from '../../functions/domain/delivery-note-pdf';
import { NO_REQUIREMENTS } from '../../functions/models/delivery-requirements';
import { DATE_TIME_FIELDS } from '../../functions/shared/time';

/** A note of one invoice whose items were visited at 09:05:00 UTC, in a DC of `timeZone`. */
function note(timeZone: string): DeliveryNoteContent {
  const at = Date.UTC(2026, 10, 23, 9, 5, 0);
  return {
    dc: { id: 'dc-1', name: 'Demo DC', timeZone },
    route: { id: 'R-1', name: 'North loop' },
    waypoint: { id: 'WP-1', name: 'Corner Store', status: 'SUCCESSFUL' },
    invoice: {
      id: 'INV-1',
      nameAttributes: [],
      items: [
        {
          id: 'IT-1',
          sku: 'SKU-1',
          name: 'Cola',
          quantity: 3,
          unit: 'CASE',
          status: { status: 'SUCCESSFUL', timestamp: at },
        },
        {
          id: 'IT-2',
          quantity: 1,
          status: { status: 'FAILED', timestamp: at, reason: { code: 'DAMAGED', message: 'box crushed' } },
        },
        { id: 'IT-3', quantity: 2 },
      ],
    },
    attempts: [{ id: 'att-1', timestamp: at, status: 'SUCCESSFUL' }],
    asOf: at,
  };
}

const textOf = async (pdf: Uint8Array) =>
  (await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true })).text;

describe('renderDeliveryNote', () => {
  it.each(['America/Chicago', 'Australia/Adelaide', 'Pacific/Chatham'])(
    'writes each item’s status time whole, in %s (the longest offsets included)',
    async (timeZone) => {
      const text = await textOf(await renderDeliveryNote(note(timeZone)));
      const time = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        ...DATE_TIME_FIELDS,
        timeZoneName: 'short',
      }).format(new Date(Date.UTC(2026, 10, 23, 9, 5, 0)));
      // The items' two times and the attempt's, none cut short.
      expect(text.split(time).length - 1).toBeGreaterThanOrEqual(3);
      expect(text).not.toContain('…');
      expect(text).toMatch(/SUCCESSFUL/);
      expect(text).toContain('not attempted');
    },
  );

  it('writes the delivery rules each attempt was held to and how it met them: PIN verified, age checked, scans', async () => {
    const base = note('America/Chicago');
    const at = base.asOf;
    const text = await textOf(
      await renderDeliveryNote({
        ...base,
        attempts: [
          {
            id: 'att-1',
            timestamp: at,
            status: 'FAILED',
            rules: { ...NO_REQUIREMENTS, pin: true, minimum_age: 21 },
            ageCheck: { result: 'UNDER_AGE' },
          },
          {
            id: 'att-2',
            timestamp: at,
            status: 'SUCCESSFUL',
            rules: { ...NO_REQUIREMENTS, photos: 2, pin: true, minimum_age: 21, scan_items: true },
            pinVerified: true,
            ageCheck: { result: 'OLD_ENOUGH' },
            scans: { matched: 3, mismatched: 1 },
          },
          { id: 'att-3', timestamp: at, status: 'SUCCESSFUL', rules: NO_REQUIREMENTS },
        ],
      }),
    );
    expect(text).toContain('Delivery rules: PIN, ID check (at least 21)');
    expect(text).toContain('Age checked: ID seen, recipient under 21');
    expect(text).toContain('Delivery rules: 2 photos, PIN, ID check (at least 21), every item scanned');
    expect(text).toContain("PIN verified: the customer's code was given and matched");
    expect(text).toContain('Age checked: ID seen, recipient at least 21');
    expect(text).toContain('Scans: 3 matched, 1 not on the stop');
    // Once each: the attempt held to no rule says nothing of rules.
    expect(text.split('Delivery rules:').length - 1).toBe(2);
    expect(text.split('PIN verified').length - 1).toBe(1);
  });
});
