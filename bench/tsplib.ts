import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TourProblem } from '../functions/domain/optimizer/tour';

/**
 * TSPLIB instances (G. Reinelt, "TSPLIB — A Traveling Salesman Problem Library", ORSA Journal on Computing 3(4),
 * 1991; Universität Heidelberg) with their published optimal tour lengths: what `route_optimization` measures the
 * route optimizer against. bench/tsplib/README.md says where the files come from and why they are not in the
 * repository; TSPLIB_DIR names the folder that holds them (default bench/tsplib).
 */
export const TSPLIB_INSTANCES = {
  kroA100: 21282,
  kroC100: 20749,
  ch150: 6528,
  kroA200: 29368,
  pr226: 80369,
  lin318: 42029,
  pcb442: 50778,
  rat575: 6773,
  d657: 48912,
  u724: 41910,
  rat783: 8806,
} as const;

export type TsplibName = keyof typeof TSPLIB_INSTANCES;

export const tsplibDir = () => process.env.TSPLIB_DIR ?? join(import.meta.dirname, 'tsplib');

/** The places of an EUC_2D instance, in the file's order; undefined when its file is not there. */
export function readTsplib(name: TsplibName, dir = tsplibDir()): [number, number][] | undefined {
  const file = join(dir, `${name}.tsp`);
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  const header = lines.slice(
    0,
    lines.findIndex((line) => line.trim().startsWith('NODE_COORD_SECTION')),
  );
  if (!header.some((line) => /^EDGE_WEIGHT_TYPE\s*:\s*EUC_2D\s*$/.test(line.trim())))
    throw new Error(`${file}: not an EUC_2D instance`);
  const places: [number, number][] = [];
  for (const line of lines.slice(header.length + 1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] === 'EOF' || fields.length < 3) break;
    places.push([Number(fields[1]), Number(fields[2])]);
  }
  return places;
}

/**
 * The instance as the optimizer's problem: a tour through every place is a path from the first place back to
 * it, so the stops are the other places and the start and the end are both the first. Costs are TSPLIB's
 * EUC_2D distances (the Euclidean distance rounded to the nearest integer), so the driving "time" of the
 * optimizer's order is the tour's length.
 */
export function tsplibProblem(places: readonly [number, number][]): TourProblem {
  const n = places.length - 1;
  const size = n + 2;
  const [first] = places;
  const at = (index: number) => (index < n ? places[index + 1] : first) as [number, number];
  const cost = new Float64Array(size * size);
  for (let a = 0; a < size; a++) {
    for (let b = 0; b < size; b++) {
      const [x1, y1] = at(a);
      const [x2, y2] = at(b);
      cost[a * size + b] = Math.round(Math.hypot(x1 - x2, y1 - y2));
    }
  }
  return {
    n,
    cost,
    departAt: 0,
    serviceMillis: Array(n).fill(0),
    windows: Array.from({ length: n }, () => []),
    locked: Array(n).fill(false),
  };
}
