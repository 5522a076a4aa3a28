/**
 * Largest request body a handler accepts. On AWS a body reaches the handler only inside its invocation event,
 * which Lambda caps at 6 MB (6,291,456 bytes) with the body JSON-escaped and the headers beside it; bodies past
 * that get API Gateway's 500 before any code of ours runs. 5 MB leaves that headroom for plain JSON, so a body
 * just over the limit gets a clear 413 instead.
 */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Largest route body an upload (POST .../invoiced-routes/uploads) may carry: 2,000 waypoints and 50,000 items
 * with long texts stay under it. A presigned PUT cannot bound the size it accepts (content-length-range is a
 * condition of POST policies only; one PUT may carry up to 5 GB), so the import worker refuses a larger object.
 */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
