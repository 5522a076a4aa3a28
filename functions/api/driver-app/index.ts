/**
 * Every endpoint definition and schema of the driver-app endpoints. The endpoint list (../index.ts) takes
 * every definition exported here; tests and tools import them from here; handlers import their own slice.
 */

export * from './accounting/endpoint';
export * from './attempt/endpoint';
export * from './finish/endpoint';
export * from './location/endpoint';
export * from './proofs/endpoint';
export * from './routes/endpoint';
export * from './schemas';
export * from './start/endpoint';
