import type { ImportMessage } from '../models/channels';
import * as channels from '../models/channels';
import { delaySecondsFor, send } from '../shared/queues';

/** Queues the check of an import's deadline for `dueAt` (epoch ms), in hops of at most SQS's 15-minute delay. */
export async function scheduleDeadlineCheck(message: ImportMessage, dueAt: number): Promise<void> {
  await send(channels.importDeadlines, message, { delaySeconds: delaySecondsFor(dueAt - Date.now()) });
}
