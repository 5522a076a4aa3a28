/** Every row and schema of the dcs endpoints, for tests and tools (handlers import their own slice). */

export * from './list/endpoint';
export * from './schemas';
