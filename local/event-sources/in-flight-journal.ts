import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { writeStateFile } from '../state-files';

/** Appended lines after which the file is rewritten with only the messages still in flight. */
const COMPACT_AFTER_LINES = 1000;

/**
 * The messages the local event sources have received and not yet finished with, kept in a file (npm start).
 *
 * A received message stays invisible for its queue's visibility timeout, six times its consumer's timeout: up
 * to 30 minutes for an import. On AWS no consumer dies with the poller, so that wait only follows a failed
 * invocation; here a killed run (kill -9, a crash) takes every function's process with it, and the messages its
 * invocations held would sit out the whole timeout after the next start. The journal names them, so the next
 * start makes them visible again at once. A message received in the very moment of the crash, before its line
 * was written, still comes back: after its visibility timeout, as it would on AWS.
 *
 * Each line is `{"queue": <name>, "received": [<receipt handle>...]}` or `{..., "finished": [...]}`.
 */
export class InFlightJournal {
  private readonly inFlight = new Map<string, Set<string>>();
  private appendedLines = 0;

  constructor(private readonly file: string) {
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      // A line cut short by the crash names a message that never got a line of its own: nothing to return.
      let entry: { queue?: string; received?: string[]; finished?: string[] };
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      if (!entry.queue) continue;
      const handles = this.handlesOf(entry.queue);
      for (const handle of entry.received ?? []) handles.add(handle);
      for (const handle of entry.finished ?? []) handles.delete(handle);
    }
  }

  /** The receipt handles the last run held when it ended, by queue name. */
  heldByLastRun(): Map<string, string[]> {
    return new Map(
      [...this.inFlight]
        .filter(([, handles]) => handles.size > 0)
        .map(([queue, handles]) => [queue, [...handles]]),
    );
  }

  /** Forgets what the last run held, once it has been handed back. */
  clear(): void {
    this.inFlight.clear();
    this.compact();
  }

  received(queue: string, handles: readonly string[]): void {
    for (const handle of handles) this.handlesOf(queue).add(handle);
    this.append({ queue, received: handles });
  }

  /** The batch's invocation ended: what becomes of its messages now is SQS's business, as on AWS. */
  finished(queue: string, handles: readonly string[]): void {
    const held = this.handlesOf(queue);
    for (const handle of handles) held.delete(handle);
    this.append({ queue, finished: handles });
  }

  private handlesOf(queue: string): Set<string> {
    let handles = this.inFlight.get(queue);
    if (!handles) {
      handles = new Set();
      this.inFlight.set(queue, handles);
    }
    return handles;
  }

  private append(entry: object): void {
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
    if (++this.appendedLines >= COMPACT_AFTER_LINES) this.compact();
  }

  private compact(): void {
    const lines = [...this.inFlight]
      .filter(([, handles]) => handles.size > 0)
      .map(([queue, handles]) => `${JSON.stringify({ queue, received: [...handles] })}\n`);
    writeStateFile(this.file, lines.join(''));
    this.appendedLines = 0;
  }
}
