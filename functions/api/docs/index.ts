/** Every row and schema of the docs endpoints, for tests and tools (handlers import their own slice). */

export * from './asset/endpoint';
export * from './openapi/endpoint';
export * from './page/endpoint';
export * from './schemas';
