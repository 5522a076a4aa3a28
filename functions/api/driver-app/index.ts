/** Every row and schema of the driver-app endpoints, for tests and tools (handlers import their own slice). */

export * from './accounting/endpoint';
export * from './attempt/endpoint';
export * from './finish/endpoint';
export * from './location/endpoint';
export * from './routes/endpoint';
export * from './schemas';
export * from './start/endpoint';
