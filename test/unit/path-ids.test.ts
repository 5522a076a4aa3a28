import { describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/api/index';
import { reservedIdProblem, reservedIdsOf } from '../../functions/models/path-ids';

const paths = endpoints.map((endpoint) => endpoint.path);

describe('reserved ids: fixed path segments where a client-chosen id goes', () => {
  it('are find_by_date and import-status for routes in the endpoint list, none for waypoints or drivers', () => {
    expect(reservedIdsOf(paths)).toEqual([
      { parameter: 'route_id', segment: 'find_by_date', path: '/dcs/{dc_id}/routes/find_by_date/{date}' },
      { parameter: 'route_id', segment: 'import-status', path: '/dcs/{dc_id}/routes/import-status/{txid}' },
    ]);
  });

  it('follow the endpoint list: a fixed segment a new path puts beside an id is refused from then on', () => {
    const withNewPaths = reservedIdsOf([
      ...paths,
      '/dcs/{dc_id}/routes/by-vehicle/{vehicle_id}',
      '/dcs/{dc_id}/drivers/on-duty',
      '/dcs/{dc_id}/routes/{route_id}/waypoints/next/eta',
      '/driver/routes/today',
    ]);
    expect(withNewPaths.map(({ parameter, segment }) => `${parameter} ${segment}`)).toEqual([
      'route_id by-vehicle',
      'route_id find_by_date',
      'route_id import-status',
      'route_id today',
      'waypoint_id next',
      'driver_id on-duty',
    ]);
    expect(reservedIdProblem('route_id', 'by-vehicle', withNewPaths)).toBe(
      "must not be 'by-vehicle', a fixed segment of the API's paths where {route_id} goes (/dcs/{dc_id}/routes/by-vehicle/{vehicle_id}): the route could not be read; choose another id",
    );
    expect(reservedIdProblem('driver_id', 'on-duty', withNewPaths)).toMatch(/^must not be 'on-duty'/);
    expect(reservedIdProblem('waypoint_id', 'next', withNewPaths)).toMatch(/^must not be 'next'/);
  });

  it('leave every other id alone: other places, other parameters, ids that only contain a segment', () => {
    const reserved = reservedIdsOf(paths);
    for (const id of ['import-status-1', 'Import-Status', 'find_by_date ', 'invoices', 'drivers', 'routes']) {
      expect(reservedIdProblem('route_id', id, reserved), id).toBeUndefined();
    }
    expect(reservedIdProblem('waypoint_id', 'import-status', reserved)).toBeUndefined();
    expect(reservedIdProblem('driver_id', 'find_by_date', reserved)).toBeUndefined();
    // Inherited properties of an object are no segments.
    expect(reservedIdProblem('route_id', 'constructor', reserved)).toBeUndefined();
  });

  it('take a fixed segment only where the paths before it could match the same URL', () => {
    expect(
      reservedIdsOf([
        '/dcs/{dc_id}/routes/{route_id}',
        '/accounts/{dc_id}/routes/summary',
        '/dcs/x/routes/y',
      ]),
    ).toEqual([{ parameter: 'route_id', segment: 'y', path: '/dcs/x/routes/y' }]);
  });
});
