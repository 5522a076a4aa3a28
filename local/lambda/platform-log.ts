/**
 * The lines Lambda itself writes to a function's log (its platform events in text format), so that cold
 * starts, durations and memory read here as in CloudWatch.
 */

export function initStartLine(runtime: string): string {
  return `INIT_START Runtime Version: ${runtime.replace(/\.x$/, '')}.local\tRuntime Version ARN: none (node ${process.version})`;
}

/** Init that failed or timed out, in the init phase or again at the invocation ("suppressed init"). */
export function initReportLine(
  durationMs: number,
  phase: 'init' | 'invoke',
  status: 'error' | 'timeout',
  errorType?: string,
): string {
  const error = errorType ? `\tError Type: ${errorType}` : '';
  return `INIT_REPORT Init Duration: ${durationMs.toFixed(2)} ms\tPhase: ${phase}\tStatus: ${status}${error}`;
}

export function startLine(requestId: string): string {
  return `START RequestId: ${requestId} Version: $LATEST`;
}

export function endLine(requestId: string): string {
  return `END RequestId: ${requestId}`;
}

export function timedOutLine(requestId: string, timeoutSeconds: number): string {
  return `${new Date().toISOString()} ${requestId} Task timed out after ${timeoutSeconds.toFixed(2)} seconds`;
}

export interface ReportFacts {
  requestId: string;
  durationMs: number;
  memorySizeMb: number;
  maxMemoryUsedMb: number;
  /** On a cold start. */
  initDurationMs?: number;
  status?: 'error' | 'timeout';
  errorType?: string;
}

/**
 * `REPORT RequestId: … Duration: … Billed Duration: …`. Since August 2025 Lambda bills the Init phase of
 * on-demand environments too (AWS Compute Blog, "AWS Lambda standardizes billing for INIT Phase"), so a
 * cold start's billed duration includes its init.
 */
export function reportLine(facts: ReportFacts): string {
  const billedMs = Math.ceil(facts.durationMs + (facts.initDurationMs ?? 0));
  const fields = [
    `REPORT RequestId: ${facts.requestId}`,
    `Duration: ${facts.durationMs.toFixed(2)} ms`,
    `Billed Duration: ${billedMs} ms`,
    `Memory Size: ${facts.memorySizeMb} MB`,
    `Max Memory Used: ${facts.maxMemoryUsedMb} MB`,
  ];
  if (facts.initDurationMs !== undefined) fields.push(`Init Duration: ${facts.initDurationMs.toFixed(2)} ms`);
  if (facts.status) fields.push(`Status: ${facts.status}`);
  if (facts.errorType) fields.push(`Error Type: ${facts.errorType}`);
  return fields.join('\t');
}
