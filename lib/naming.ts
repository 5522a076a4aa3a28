/** 'drivers/finish-routes' -> 'DriversFinishRoutes'; 'QUOTA_EXCEEDED'.toLowerCase() -> 'QuotaExceeded'. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');
}

/** Construct id of a slice's function: 'drivers/finish-routes' -> 'DriversFinishRoutesFunction'. */
export function functionId(sliceName: string): string {
  return `${pascalCase(sliceName)}Function`;
}

/**
 * Construct ids of a channel's queue and its DLQ in the stateful stack: 'imports' -> 'ImportsQueue' and
 * 'ImportsDeadLetterQueue' (the local runtime finds them by these too).
 */
export function channelQueueIds(channelName: string): { queue: string; deadLetterQueue: string } {
  const id = pascalCase(channelName);
  return { queue: `${id}Queue`, deadLetterQueue: `${id}DeadLetterQueue` };
}
