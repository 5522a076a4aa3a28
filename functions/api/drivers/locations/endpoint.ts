import { EpochMillisQuery, pagedQuery, pageOf, TRACE_PAGE_SIZE, TracePoint } from '../../../models/common';
import { TrackFeatureCollection } from '../../../models/geojson';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { DriverParams, driversEndpoint } from '../schemas';

export const listDriverLocations = /* @__PURE__ */ driversEndpoint(
  'GET /dcs/{dc_id}/drivers/{driver_id}/locations',
  {
    operationId: 'listDriverLocations',
    module: import.meta.url,
    summary:
      'The driver’s location history (kept 90 days), in time order; GeoJSON with Accept: application/geo+json',
    description:
      'Every ping the driver app reported between `from` and `to` (inclusive, epoch ms; the last day to now when absent), oldest first, as kept: 90 days. With `Accept: application/geo+json`, the page as an RFC 7946 FeatureCollection ([longitude, latitude]; the pings as one LineString) that geojson.io or QGIS opens as it is.',
    request: {
      params: DriverParams,
      query: /* @__PURE__ */ z.extend(/* @__PURE__ */ pagedQuery(TRACE_PAGE_SIZE), {
        from: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(EpochMillisQuery), {
          description: 'first ping time (epoch ms); to - 24 h when absent',
        }),
        to: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(EpochMillisQuery), {
          description: 'last ping time (epoch ms); now when absent',
        }),
      }),
    },
    responses:
      import.meta.responseSchemas !== false && ok('the pings, oldest first', pageOf('locations', TracePoint)),
    geoJson: {
      description: 'the page as a GeoJSON FeatureCollection',
      schema: import.meta.responseSchemas !== false && TrackFeatureCollection,
    },
  },
);
