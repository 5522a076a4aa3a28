import type { APIGatewayProxyEvent } from 'aws-lambda';
import Negotiator from 'negotiator';

/**
 * Whether the client prefers `application/geo+json` (its Accept header), for the handlers of endpoints with
 * `geoJson`, which pass it to httpHandler: only their functions bundle the Accept negotiation (negotiator,
 * about 6 KB a cold start would parse in every other API function).
 *
 * JSON first: only a client that asks for GeoJSON by name (geojson.io, QGIS, curl -H) gets it.
 */
export function prefersGeoJson(event: APIGatewayProxyEvent): boolean {
  const accept = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'accept')?.[1];
  if (!accept) return false;
  const media = new Negotiator({ headers: { accept } }).mediaType([
    'application/json',
    'application/geo+json',
  ]);
  return media === 'application/geo+json';
}
