/**
 * Every endpoint definition and schema of the drivers endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './active-routes/endpoint';
export * from './bulk-info/endpoint';
export * from './create/endpoint';
export * from './delete/endpoint';
export * from './finish-routes/endpoint';
export * from './get/endpoint';
export * from './list/endpoint';
export * from './location/endpoint';
export * from './locations/endpoint';
export * from './schemas';
export * from './update/endpoint';
