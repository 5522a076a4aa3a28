import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import type { DeliveryNoteContent } from '../../functions/domain/delivery-note';
import { renderDeliveryNote } from '../../functions/domain/delivery-note-pdf';

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
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'short',
      }).format(new Date(Date.UTC(2026, 10, 23, 9, 5, 0)));
      // The items' two times and the attempt's, none cut short.
      expect(text.split(time).length - 1).toBeGreaterThanOrEqual(3);
      expect(text).not.toContain('…');
      expect(text).toMatch(/SUCCESSFUL/);
      expect(text).toContain('not attempted');
    },
  );
});
