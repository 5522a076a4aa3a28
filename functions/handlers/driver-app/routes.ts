import { type RouteDetail, routesOfDriver } from '../../domain/route-reports';
import { listDriverRoutes as endpoint } from '../../endpoints/driver-app';
import { httpHandler } from '../../shared/http-handler';
import { invoiceStatusView, routeView, waypointView } from '../routes/views';

const driverRouteView = ({ route, waypoints }: RouteDetail) => ({
  ...routeView(route),
  waypoints: waypoints.map((waypoint) => ({
    ...waypointView(waypoint),
    invoices: waypoint.invoices.map(invoiceStatusView),
  })),
});

export const handler = httpHandler(endpoint, async ({ query, caller }) => {
  const page = await routesOfDriver(caller, { limit: query.limit, nextToken: query.next_token });
  return { routes: page.items.map(driverRouteView), next_token: page.nextToken };
});
