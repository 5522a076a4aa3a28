/** Every row and schema of the analytics endpoints, for tests and tools (handlers import their own slice). */

export * from './attempts/endpoint';
export * from './column-definitions/endpoint';
export * from './download-files/endpoint';
export * from './request-download/endpoint';
export * from './route/endpoint';
export * from './schemas';
