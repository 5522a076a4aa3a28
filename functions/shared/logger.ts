/**
 * @deprecated Import `logger` from `./observability`, which also has the metrics, the tracer and
 * `observed()`. Kept only so that code written before it still builds.
 */
export { logger } from './observability';
