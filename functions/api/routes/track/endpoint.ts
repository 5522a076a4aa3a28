import {
  EpochMillis,
  Location,
  NextToken,
  pagedQuery,
  TRACE_PAGE_SIZE,
  TracePoint,
} from '../../../models/common';
import { TrackFeatureCollection } from '../../../models/geojson';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { RouteParams, routesEndpoint } from '../schemas';

export const getRouteTrack = /* @__PURE__ */ routesEndpoint('GET /dcs/{dc_id}/routes/{route_id}/track', {
  operationId: 'getRouteTrack',
  module: import.meta.url,
  summary:
    'The path the route’s driver took, with the arrivals and departures; GeoJSON with Accept: application/geo+json',
  description:
    'The pings of the route’s driver from the route’s start to its end (now while it runs), oldest first, as kept: 90 days; empty before the start. The first page also lists every arrival and departure detected on the route (docs/api.md, Arrivals and departures). With `Accept: application/geo+json`, the page as an RFC 7946 FeatureCollection ([longitude, latitude]: the pings as one LineString, each arrival and departure a Point at its waypoint) that geojson.io or QGIS opens as it is.',
  request: { params: RouteParams, query: /* @__PURE__ */ pagedQuery(TRACE_PAGE_SIZE) },
  responses:
    import.meta.responseSchemas !== false &&
    ok(
      'the route’s trace, oldest first',
      z.object({
        route_id: /* @__PURE__ */ z.string(),
        driver_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
          description: 'the route’s driver; null without one',
        }),
        started_timestamp: /* @__PURE__ */ z.nullable(EpochMillis),
        finalized_timestamp: /* @__PURE__ */ z.nullable(EpochMillis),
        locations: /* @__PURE__ */ z.array(TracePoint),
        visits: /* @__PURE__ */ z.withMeta(
          /* @__PURE__ */ z.array(
            /* @__PURE__ */ z.object({
              kind: /* @__PURE__ */ z.enum(['ARRIVED', 'DEPARTED']),
              waypoint_id: /* @__PURE__ */ z.string(),
              timestamp: EpochMillis,
              location: /* @__PURE__ */ z.withMeta(Location, { description: 'the waypoint’s' }),
            }),
          ),
          {
            description: 'every arrival and departure on the route, in time order: on the first page only',
          },
        ),
        next_token: NextToken,
      }),
    ),
  geoJson: {
    description: 'the page as a GeoJSON FeatureCollection',
    schema: import.meta.responseSchemas !== false && TrackFeatureCollection,
  },
});
