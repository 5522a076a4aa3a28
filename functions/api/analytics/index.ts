/**
 * Every endpoint definition and schema of the analytics endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './attempts/endpoint';
export * from './column-definitions/endpoint';
export * from './download-files/endpoint';
export * from './request-download/endpoint';
export * from './route/endpoint';
export * from './schemas';
