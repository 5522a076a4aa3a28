import { routeTrack } from '../../../domain/location-history';
import { trackFeatureCollection } from '../../../models/geojson';
import { tracePointView } from '../../drivers/views';
import { prefersGeoJson } from '../../geo-json';
import { GeoJsonAnswer, httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { getRouteTrack as endpoint } from './endpoint';

export const handler = httpHandler(
  endpoint,
  async ({ params, query, caller, prefersGeoJson }) => {
    const track = await routeTrack(routeRef(caller, params), {
      limit: query.limit,
      nextToken: query.next_token,
    });
    const { items, nextToken } = track.points;
    if (prefersGeoJson)
      return new GeoJsonAnswer(trackFeatureCollection(track.driverId, items, track.visits, nextToken));
    return {
      route_id: track.routeId,
      driver_id: track.driverId,
      started_timestamp: track.startedAt,
      finalized_timestamp: track.endedAt,
      locations: items.map(tracePointView),
      visits: track.visits.map((visit) => ({
        kind: visit.kind,
        waypoint_id: visit.waypointId,
        timestamp: visit.timestamp,
        location: { latitude: visit.location.latitude, longitude: visit.location.longitude },
      })),
      next_token: nextToken,
    };
  },
  prefersGeoJson,
);
