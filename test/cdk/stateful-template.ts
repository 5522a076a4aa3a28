import { logicalIdOf, resourcesOf, synthesize } from './synth';

/**
 * The stateful stack of one synthesis of the app, as the stateful stack tests read it. Importing this module
 * synthesizes the app once per worker: the CDK tier runs its files without isolation (vitest.config.ts).
 */
export const { stateful, statefulTemplate: template } = synthesize();
export const resources = resourcesOf(template);

export function resource(id: string) {
  const found = resources[id];
  if (!found) throw new Error(`no resource ${id}`);
  return found;
}

/** The alarm topic's logical id: every alarm of the stack notifies it. */
export const topicId = logicalIdOf(stateful, stateful.alarmTopic);
