import { singleRouteAnalytics } from '../schemas';

export const getRouteAnalytics = singleRouteAnalytics(import.meta.url, 'route');
