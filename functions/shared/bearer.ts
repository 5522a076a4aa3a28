/** The secret of an `Authorization: Bearer <secret>` header, or undefined when the header is malformed. */
export function bearerSecret(
  headers: Record<string, string | undefined> | null | undefined,
): string | undefined {
  const entry = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization');
  const match = entry?.[1]?.match(/^Bearer ([\x21-\x7e]{1,512})$/i);
  return match?.[1];
}
