/** Every row and schema of the webhooks endpoints, for tests and tools (handlers import their own slice). */

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
