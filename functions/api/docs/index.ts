/**
 * Every endpoint definition and schema of the docs endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './asset/endpoint';
export * from './openapi/endpoint';
export * from './page/endpoint';
export * from './schemas';
