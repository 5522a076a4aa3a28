/**
 * `node:process` as the bundles import it (lib/bundling.ts BUNDLE_ALIASES): the process object Lambda's node
 * gives every module. Node builds an ES module's view of a built-in from the value of every export, and some
 * of process's are getters that load more (`report`, `finalization`): the AWS SDK's user-agent code, in every
 * bundle with a client, imports `env` and `versions` that way. With this module in its place, drivers/list's
 * module init took 94.6 ms of CPU instead of 100.5 (medians of 25 fresh processes each, alternating; Node 22).
 * A bundled import of any other name fails the build, so a new one is seen and added here. Unbundled code
 * (tsx: the tests, the admin tools) imports node's own module.
 */
export const { env, versions } = process;
export default process;
