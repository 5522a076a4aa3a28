import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime } from './runtime';
import type { Scenario } from './scenario';
import { check, median, round } from './stats';

/**
 * `npm start`'s own start, from spawning `tsx bin/local.ts --in-memory` to its listening line and stack.json:
 * the first start on a machine (an empty LOCAL_CACHE_DIR: the app synthesized, every function's bundle built)
 * and later starts (both reused; median of LATER_STARTS). Targets on a quiet two-core machine: first <= 30 s,
 * later <= 8 s; the load averages before and after say how quiet it was. tsx's own compile cache is not
 * emptied: on a fresh clone the first start also compiles the runtime's TypeScript (1-3 s more).
 */
const FIRST_START_TARGET_S = 30;
const LATER_START_TARGET_S = 8;
const LATER_STARTS = 3;

export const localStartScenario: Scenario = {
  name: 'local_start',
  needsRuntime: false,
  async run({ log, abort }) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'drs-bench-cache-'));
    const loadBefore = loadavg();
    const start = async (which: string) => {
      log(`local_start: ${which} start`);
      const runtime = await startLocalRuntime(log, abort, { LOCAL_CACHE_DIR: cacheDir });
      await runtime.stop();
      return runtime.startupMs / 1000;
    };
    try {
      const first = await start('first');
      const later: number[] = [];
      for (let run = 1; run <= LATER_STARTS; run++) later.push(await start(`later (${run}/${LATER_STARTS})`));
      return {
        description: "npm start's first start (nothing cached) and later starts, to its listening line",
        errors: 0,
        first_start_s: round(first, 1),
        later_start_s: later.map((seconds) => round(seconds, 1)),
        loadavg_1m: [round(loadBefore[0] ?? Number.NaN, 2), round(loadavg()[0] ?? Number.NaN, 2)],
        checks: {
          first_start_s: check(
            first,
            '<=',
            FIRST_START_TARGET_S,
            'an empty cache: synthesis and every bundle',
          ),
          later_start_s: check(median(later), '<=', LATER_START_TARGET_S, `median of ${LATER_STARTS}`),
        },
      };
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  },
};
