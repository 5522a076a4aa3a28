/**
 * Every endpoint definition and schema of the tracking endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './page/endpoint';
export * from './schemas';
export * from './unsubscribe/endpoint';
