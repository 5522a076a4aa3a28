import { type DriverWaypoint, type RouteDetail, routesOfDriver } from '../../../domain/route-reports';
import { proxyBytesOf } from '../../../shared/limits';
import { httpHandler } from '../../http-handler';
import { invoiceStatusView, routeView, waypointView } from '../../routes/views';
import { listDriverRoutes as endpoint } from './endpoint';

const driverWaypointView = (waypoint: DriverWaypoint) => ({
  ...waypointView(waypoint),
  invoices: waypoint.invoices.map(invoiceStatusView),
});

const driverRouteView = ({ route, waypoints }: RouteDetail) => ({
  ...routeView(route),
  waypoints: waypoints.map(driverWaypointView),
});

export const handler = httpHandler(endpoint, async ({ query, caller }) => {
  const page = await routesOfDriver(caller, {
    limit: query.limit,
    nextToken: query.next_token,
    routeHeaderBytes: (route) => proxyBytesOf(driverRouteView({ route, waypoints: [] })),
    waypointBytes: (waypoint) => proxyBytesOf(driverWaypointView(waypoint)),
  });
  return { routes: page.items.map(driverRouteView), next_token: page.nextToken };
});
