/** Reads a required environment variable; throws at cold start so a misconfigured function fails loudly. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}
