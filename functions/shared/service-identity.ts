/**
 * How the service names itself in logs, metrics and traces. CDK sets these as POWERTOOLS_SERVICE_NAME and
 * POWERTOOLS_METRICS_NAMESPACE on every function; the functions fall back to the same values without them.
 */
export const SERVICE_NAME = 'delivery-route-service';

/** The CloudWatch namespace of the business metrics (ImportsAccepted, WebhookDeliveriesFailed, ...). */
export const METRICS_NAMESPACE = 'DeliveryRouteService';
