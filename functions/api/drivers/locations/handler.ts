import { driverLocations } from '../../../domain/location-history';
import { trackFeatureCollection } from '../../../models/geojson';
import { prefersGeoJson } from '../../geo-json';
import { GeoJsonAnswer, httpHandler } from '../../http-handler';
import { driverRef } from '../../refs';
import { tracePointView } from '../views';
import { listDriverLocations as endpoint } from './endpoint';

export const handler = httpHandler(
  endpoint,
  async ({ params, query, caller, prefersGeoJson }) => {
    const ref = driverRef(caller, params);
    const page = await driverLocations(
      ref,
      { from: query.from, to: query.to },
      { limit: query.limit, nextToken: query.next_token },
    );
    if (prefersGeoJson)
      return new GeoJsonAnswer(trackFeatureCollection(ref.driverId, page.items, [], page.nextToken));
    return { locations: page.items.map(tracePointView), next_token: page.nextToken };
  },
  prefersGeoJson,
);
