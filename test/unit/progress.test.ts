import { describe, expect, it } from 'vitest';
import { progressLine } from '../../local/progress';

/** A stream that keeps what is written, and a clock the test moves. */
function recorder(isTTY: boolean) {
  const writes: string[] = [];
  const clock = { ms: 0 };
  return {
    stream: { isTTY, write: (text: string) => writes.push(text) },
    writes,
    clock,
    now: () => clock.ms,
  };
}

/** What a progress line of `total` parts writes when a part ends every `msPerPart`, from the first to the last. */
function writesOfSteadyWork(isTTY: boolean, total: number, msPerPart: number): string[] {
  const { stream, writes, clock, now } = recorder(isTTY);
  const report = progressLine('building Lambda bundles', total, stream, now);
  for (let done = 0; done <= total; done++) {
    clock.ms = done * msPerPart;
    report(done);
  }
  return writes;
}

describe('progress lines', () => {
  it('prints plain lines off a terminal: the first, one per tenth of the work, and the last with its time', () => {
    expect(writesOfSteadyWork(false, 59, 100)).toEqual([
      'building Lambda bundles: 0/59\n',
      ...[6, 12, 18, 24, 30, 36, 42, 48, 54].map((done) => `building Lambda bundles: ${done}/59\n`),
      'building Lambda bundles: 59/59, done in 5.9 s\n',
    ]);
  });

  it('prints a plain line when a part ends 5 s or more after the last line', () => {
    const { stream, writes, clock, now } = recorder(false);
    const report = progressLine('building Lambda bundles', 100, stream, now);
    report(0);
    clock.ms = 4_999;
    report(1);
    clock.ms = 5_000;
    report(2);
    clock.ms = 9_000;
    report(3);
    expect(writes).toEqual(['building Lambda bundles: 0/100\n', 'building Lambda bundles: 2/100\n']);
  });

  it('rewrites one line in place on a terminal, ending it when the work is done', () => {
    expect(writesOfSteadyWork(true, 3, 1000)).toEqual([
      '\r\x1b[Kbuilding Lambda bundles: 0/3',
      '\r\x1b[Kbuilding Lambda bundles: 1/3',
      '\r\x1b[Kbuilding Lambda bundles: 2/3',
      '\r\x1b[Kbuilding Lambda bundles: 3/3, done in 3.0 s\n',
    ]);
  });
});
