import * as z from '../shared/zod';

/**
 * Location history as RFC 7946 GeoJSON (`application/geo+json`): a FeatureCollection that geojson.io and QGIS
 * open as it is. Positions are [longitude, latitude] (RFC 7946 §3.1.1, the reverse of the JSON answers'
 * objects); the driver's path is one LineString (two or more pings; one ping is a Point), its pings' times in
 * `timestamps`, and each arrival and departure a Point at its waypoint. A page continues with `next_token`, a
 * foreign member (§6.1) beside `features`.
 *
 * A model module: zod only, so that the definitions (OpenAPI) and the handlers share it.
 */

const Position = z.withMeta(z.tuple([z.number(), z.number()]), {
  description: '[longitude, latitude] (RFC 7946 §3.1.1)',
});
const EpochMillis = z.int().check(z.minimum(0));

const PathFeature = z.object({
  type: z.literal('Feature'),
  geometry: z.union([
    z.object({ type: z.literal('LineString'), coordinates: z.array(Position) }),
    z.object({ type: z.literal('Point'), coordinates: Position }),
  ]),
  properties: z.object({
    kind: z.literal('PATH'),
    driver_id: z.string(),
    timestamps: z.withMeta(z.array(EpochMillis), { description: 'each position’s ping time (epoch ms)' }),
  }),
});

const VisitFeature = z.object({
  type: z.literal('Feature'),
  geometry: z.object({ type: z.literal('Point'), coordinates: Position }),
  properties: z.object({
    kind: z.enum(['ARRIVED', 'DEPARTED']),
    waypoint_id: z.string(),
    timestamp: z.withMeta(EpochMillis, { description: 'when (epoch ms)' }),
  }),
});

export const TrackFeatureCollection = z.withMeta(
  z.object({
    type: z.literal('FeatureCollection'),
    features: z.array(z.union([PathFeature, VisitFeature])),
    next_token: z.withMeta(z.optional(z.string()), { description: 'present when more pings remain' }),
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
