import * as z from '../shared/zod';
import { Id } from './common';

/**
 * Ids a client chooses that later stand in a path as a parameter: a new route's id is `{route_id}`, a new
 * waypoint's `{waypoint_id}`, a new driver's `{driver_id}`. (The service's own ids carry a prefix, `imp_…`,
 * `wh_…`, and the DCs an operator creates are checked by their own tools.)
 */
export const ID_PARAMETERS = ['route_id', 'waypoint_id', 'driver_id'] as const;
export type IdParameter = (typeof ID_PARAMETERS)[number];

/** An id that cannot stand for `{parameter}`: a fixed segment of `path` sits in its place. */
export interface ReservedId {
  parameter: IdParameter;
  segment: string;
  /** The first path (of the endpoint list's order) that has the segment there. */
  path: string;
}

const parameterOf = (segment: string) => /^\{(\w+)\}$/.exec(segment)?.[1];

/**
 * The fixed segments that sit where an id parameter does: in `/dcs/{dc_id}/routes/import-status/{txid}`,
 * `import-status` takes the place of the `{route_id}` of `/dcs/{dc_id}/routes/{route_id}/invoices`, so a route
 * with that id could not be read (API Gateway, like any router, prefers the fixed segment). Two paths
 * share the place when every segment before it could be the same in a URL (equal, or a parameter in
 * either). A segment counts as soon as it sits beside the parameter, whatever follows it, so a route
 * stored now never becomes unreadable when a sub-resource is added later.
 *
 * Derived from the endpoint list's paths (`functions/api/index.ts`): lib/bundling.ts builds it into every
 * function (RESERVED_PATH_IDS below), the OpenAPI document and docs/api.md list it.
 */
export function reservedIdsOf(paths: readonly string[]): ReservedId[] {
  const templates = [...new Set(paths)].map((path) => ({ path, segments: path.split('/').slice(1) }));
  const mayMatchSameUrl = (a: readonly string[], b: readonly string[], upTo: number) =>
    a
      .slice(0, upTo)
      .every((segment, index) => segment === b[index] || parameterOf(segment) || parameterOf(b[index] ?? ''));
  const reserved = new Map<string, ReservedId>();
  for (const { segments } of templates) {
    segments.forEach((segment, place) => {
      const parameter = parameterOf(segment);
      if (!ID_PARAMETERS.includes(parameter as IdParameter)) return;
      for (const other of templates) {
        const fixed = other.segments[place];
        if (fixed === undefined || parameterOf(fixed) || !mayMatchSameUrl(segments, other.segments, place))
          continue;
        const key = JSON.stringify([parameter, fixed]);
        if (!reserved.has(key))
          reserved.set(key, { parameter: parameter as IdParameter, segment: fixed, path: other.path });
      }
    });
  }
  return [...reserved.values()].sort(
    (a, b) =>
      ID_PARAMETERS.indexOf(a.parameter) - ID_PARAMETERS.indexOf(b.parameter) ||
      (a.segment < b.segment ? -1 : a.segment > b.segment ? 1 : 0),
  );
}

/** The name of the build-time constant that carries `reservedIdsOf` of the endpoint list into each bundle. */
export const RESERVED_IDS_CONSTANT = 'RESERVED_PATH_IDS';

/**
 * The endpoint list's reserved ids, as esbuild wrote them into the bundle (`define`, lib/bundling.ts): the
 * import and driver functions cannot import the endpoint list (every endpoint's schemas, and the layers forbid
 * it), and the import worker must refuse what the POST refuses. The constant is their JSON as a string
 * literal: an object would become a module of esbuild's own (`<define:…>`), which no file backs. Unbundled
 * code (tsx tools, tests calling the domain directly) has no constant and reserves nothing; every deployed
 * or locally run function is a bundle.
 */
declare const RESERVED_PATH_IDS: string | undefined;

let bundled: readonly ReservedId[] | undefined;
const bundledReservedIds = (): readonly ReservedId[] => {
  bundled ??= typeof RESERVED_PATH_IDS === 'undefined' ? [] : (JSON.parse(RESERVED_PATH_IDS) as ReservedId[]);
  return bundled;
};

/** Why `id` cannot be the id of a new `{parameter}`, or undefined when it can. */
export function reservedIdProblem(
  parameter: IdParameter,
  id: string,
  reserved: readonly ReservedId[] = bundledReservedIds(),
): string | undefined {
  const clash = reserved.find((entry) => entry.parameter === parameter && entry.segment === id);
  return clash
    ? `must not be '${clash.segment}', a fixed segment of the API's paths where {${parameter}} goes (${clash.path}): the ${parameter.replace(/_id$/, '')} could not be read; choose another id`
    : undefined;
}

/**
 * The id of a new resource that paths name by `{parameter}`: an `Id`, and not one of the fixed segments that
 * sit in the parameter's place (`reservedIdsOf`); refused with 1006 like any rule of an id.
 */
export const PathId = (parameter: IdParameter) =>
  z.withMeta(
    Id.check(
      z.superRefine((id, context) => {
        const problem = reservedIdProblem(parameter, id);
        if (problem) context.addIssue({ code: 'custom', message: problem });
      }),
    ),
    {
      description: `${z.globalRegistry.get(Id)?.description}; and none of the fixed path segments that sit where {${parameter}} does (listed under the ${parameter} path parameter)`,
    },
  );
