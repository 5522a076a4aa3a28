import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InFlightJournal } from '../../local/event-sources/in-flight-journal';

const scratch = mkdtempSync(join(tmpdir(), 'journal-'));
const journalFile = () => join(mkdtempSync(join(scratch, 'run-')), 'in-flight-messages.jsonl');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the in-flight journal of the local event sources', () => {
  it('names, after a restart, exactly the messages received and not finished, by queue', () => {
    const file = journalFile();
    const run = new InFlightJournal(file);
    run.received('imports', ['i1']);
    run.received('deliveries', ['d1', 'd2']);
    run.finished('deliveries', ['d1']);
    run.received('deliveries', ['d3']);
    run.finished('imports', ['i1']);

    const next = new InFlightJournal(file);
    expect(next.heldByLastRun()).toEqual(new Map([['deliveries', ['d2', 'd3']]]));
  });

  it('skips a last line the crash cut short', () => {
    const file = journalFile();
    new InFlightJournal(file).received('imports', ['i1']);
    appendFileSync(file, '{"queue":"imports","rece');
    expect(new InFlightJournal(file).heldByLastRun()).toEqual(new Map([['imports', ['i1']]]));
  });

  it('forgets what was handed back, and keeps what a run holds when it compacts', () => {
    const file = journalFile();
    const first = new InFlightJournal(file);
    first.received('imports', ['i1']);
    const second = new InFlightJournal(file);
    second.clear();
    expect(readFileSync(file, 'utf8')).toBe('');
    for (let n = 0; n < 1200; n++) {
      second.received('deliveries', [`d${n}`]);
      if (n !== 7) second.finished('deliveries', [`d${n}`]);
    }
    // Compacted past 1,000 lines: the file holds far fewer lines than were written, and still d7.
    expect(readFileSync(file, 'utf8').split('\n').length).toBeLessThan(1000);
    expect(new InFlightJournal(file).heldByLastRun()).toEqual(new Map([['deliveries', ['d7']]]));
  });
});
