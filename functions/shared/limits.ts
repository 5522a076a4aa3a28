/** Largest request body a handler accepts (a Lambda invocation payload tops out at 6 MB). */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;
