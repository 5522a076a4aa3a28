/** Where progress goes: a terminal (isTTY) or a pipe, a file, a CI log. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A plain line at most this often (besides every tenth of the work): a log shows that work goes on. */
const PLAIN_LINE_INTERVAL_MS = 5_000;

/**
 * Prints how far a step of `total` parts has come (`building Lambda bundles: 12/59`). On a terminal it is one
 * line, rewritten in place; elsewhere (a pipe, a log file) plain lines, not one per part: the first, one at
 * each tenth of the work, one when a part ends 5 s or more after the last line, and the last, with how long
 * the step took. Call the returned function with 0 at the start and after each part; `now` is for tests.
 */
export function progressLine(
  label: string,
  total: number,
  stream: ProgressStream,
  now: () => number = () => performance.now(),
): (done: number) => void {
  const started = now();
  let lastPrinted = started;
  let lastTenth = 0;
  const text = (done: number) =>
    done === total
      ? `${label}: ${done}/${total}, done in ${((now() - started) / 1000).toFixed(1)} s`
      : `${label}: ${done}/${total}`;
  const report = (done: number) => {
    if (stream.isTTY) {
      stream.write(`\r\x1b[K${text(done)}${done === total ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor((done * 10) / total);
    if (done === 0 || done === total || tenth > lastTenth || now() - lastPrinted >= PLAIN_LINE_INTERVAL_MS) {
      stream.write(`${text(done)}\n`);
      lastPrinted = now();
      lastTenth = tenth;
    }
  };
  return report;
}
