/**
 * The operator CLI's commands (bin/admin.ts), in the order its usage and the docs give them: apart from the
 * CLI, which runs on import, so that its e2e test checks the usage and the docs against this one list.
 */
export const ADMIN_COMMANDS = [
  'create-account',
  'register-usage-key',
  'add-dc',
  'create-api-key',
  'revoke-api-key',
  'set-eta-speed',
  'backfill-driver-routes',
] as const;
