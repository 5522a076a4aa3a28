/** Every row and schema of the drivers endpoints, for tests and tools (handlers import their own slice). */

export * from './active-routes/endpoint';
export * from './bulk-info/endpoint';
export * from './create/endpoint';
export * from './delete/endpoint';
export * from './finish-routes/endpoint';
export * from './get/endpoint';
export * from './list/endpoint';
export * from './location/endpoint';
export * from './schemas';
export * from './update/endpoint';
