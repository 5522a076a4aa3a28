/**
 * Every endpoint definition and schema of the dcs endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './list/endpoint';
export * from './notification-settings/endpoint';
export * from './schemas';
export * from './settings/endpoint';
export * from './update-notification-settings/endpoint';
export * from './update-settings/endpoint';
