/**
 * Every endpoint definition and schema of the webhooks endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './create/endpoint';
export * from './delete/endpoint';
export * from './deliveries/endpoint';
export * from './list/endpoint';
export * from './redeliver/endpoint';
export * from './redeliver-failed/endpoint';
export * from './rotate-secret/endpoint';
export * from './schemas';
export * from './test/endpoint';
export * from './update/endpoint';
