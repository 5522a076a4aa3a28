import * as z from '../shared/zod';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

/**
 * Location history as RFC 7946 GeoJSON (`application/geo+json`): a FeatureCollection that geojson.io and QGIS
 * open as it is. Positions are [longitude, latitude] (RFC 7946 §3.1.1, the reverse of the JSON answers'
 * objects); the driver's path is one LineString (two or more pings; one ping is a Point), its pings' times in
 * `timestamps`, and each arrival and departure a Point at its waypoint. A page continues with `next_token`, a
 * foreign member (§6.1) beside `features`.
 *
 * A model module: zod only, so that the definitions (OpenAPI) and the handlers share it.
 */

const Position = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.tuple([/* @__PURE__ */ z.number(), /* @__PURE__ */ z.number()]),
  {
    description: '[longitude, latitude] (RFC 7946 §3.1.1)',
  },
);
const EpochMillis = /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(0));

const PathFeature = /* @__PURE__ */ z.object({
  type: /* @__PURE__ */ z.literal('Feature'),
  geometry: /* @__PURE__ */ z.union([
    /* @__PURE__ */ z.object({
      type: /* @__PURE__ */ z.literal('LineString'),
      coordinates: /* @__PURE__ */ z.array(Position),
    }),
    /* @__PURE__ */ z.object({ type: /* @__PURE__ */ z.literal('Point'), coordinates: Position }),
  ]),
  properties: /* @__PURE__ */ z.object({
    kind: /* @__PURE__ */ z.literal('PATH'),
    driver_id: /* @__PURE__ */ z.string(),
    timestamps: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(EpochMillis), {
      description: 'each position’s ping time (epoch ms)',
    }),
  }),
});

const VisitFeature = /* @__PURE__ */ z.object({
  type: /* @__PURE__ */ z.literal('Feature'),
  geometry: /* @__PURE__ */ z.object({ type: /* @__PURE__ */ z.literal('Point'), coordinates: Position }),
  properties: /* @__PURE__ */ z.object({
    kind: /* @__PURE__ */ z.enum(['ARRIVED', 'DEPARTED']),
    waypoint_id: /* @__PURE__ */ z.string(),
    timestamp: /* @__PURE__ */ z.withMeta(EpochMillis, { description: 'when (epoch ms)' }),
  }),
});

export const TrackFeatureCollection = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    type: /* @__PURE__ */ z.literal('FeatureCollection'),
    features: /* @__PURE__ */ z.array(/* @__PURE__ */ z.union([PathFeature, VisitFeature])),
    next_token: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()), {
      description: 'present when more pings remain',
    }),
  }),
  {
    id: 'TrackFeatureCollection',
    description:
      'RFC 7946 GeoJSON: the page’s pings as one LineString (a Point for a single ping), and on a route’s first page each arrival and departure as a Point at its waypoint',
  },
);
export type TrackFeatureCollection = z.output<typeof TrackFeatureCollection>;

interface LatLng {
  latitude: number;
  longitude: number;
}

/** [longitude, latitude]: GeoJSON's order. */
const position = (at: LatLng): [number, number] => [at.longitude, at.latitude];

/** The FeatureCollection of a page of pings and the visits shown with it. */
export function trackFeatureCollection(
  driverId: string | null,
  points: readonly (LatLng & { timestamp: number })[],
  visits: readonly {
    kind: 'ARRIVED' | 'DEPARTED';
    waypointId: string;
    timestamp: number;
    location: LatLng;
  }[],
  nextToken: string | undefined,
): TrackFeatureCollection {
  const path =
    driverId === null || points.length === 0
      ? []
      : [
          {
            type: 'Feature' as const,
            geometry:
              points.length === 1
                ? { type: 'Point' as const, coordinates: position(points[0] as LatLng) }
                : { type: 'LineString' as const, coordinates: points.map(position) },
            properties: {
              kind: 'PATH' as const,
              driver_id: driverId,
              timestamps: points.map((point) => point.timestamp),
            },
          },
        ];
  const visitFeatures = visits.map((visit) => ({
    type: 'Feature' as const,
    geometry: { type: 'Point' as const, coordinates: position(visit.location) },
    properties: { kind: visit.kind, waypoint_id: visit.waypointId, timestamp: visit.timestamp },
  }));
  return {
    type: 'FeatureCollection',
    features: [...path, ...visitFeatures],
    ...(nextToken === undefined ? {} : { next_token: nextToken }),
  };
}
