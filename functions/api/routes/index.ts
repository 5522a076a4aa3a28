/**
 * Every endpoint definition and schema of the routes endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './accounting/endpoint';
export * from './accounting-schemas';
export * from './activate/endpoint';
export * from './assign-driver/endpoint';
export * from './assign-vehicle/endpoint';
export * from './cancel-waypoint/endpoint';
export * from './completion-time/endpoint';
export * from './deactivate/endpoint';
export * from './delete/endpoint';
export * from './evidence/endpoint';
export * from './find-by-date/endpoint';
export * from './finish/endpoint';
export * from './get/endpoint';
export * from './import/endpoint';
export * from './import-status/endpoint';
export * from './invoice-schemas';
export * from './invoices/endpoint';
export * from './optimization/endpoint';
export * from './optimization-schemas';
export * from './optimize/endpoint';
export * from './proof-schemas';
export * from './proofs/endpoint';
export * from './reorder-waypoints/endpoint';
export * from './reset-pin/endpoint';
export * from './revise/endpoint';
export * from './schemas';
export * from './start/endpoint';
export * from './track/endpoint';
export * from './unassign-driver/endpoint';
export * from './upload/endpoint';
export * from './waypoint/endpoint';
export * from './waypoint-notifications/endpoint';
export * from './waypoint-schemas';
export * from './waypoints/endpoint';
