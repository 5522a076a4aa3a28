import { createAccountWithUsageKey } from '../../functions/domain/usage-keys';

/**
 * Test accounts made through the same domain code the admin CLI uses, usage key registered in the API's
 * usage plan (through the local AWS endpoint, as the operator).
 */
export async function createTestAccount(
  name: string,
  dcs: { dcId: string; timeZone?: string; name?: string }[],
) {
  const created = await createAccountWithUsageKey({
    name,
    dcs: dcs.map((dc) => ({ dcId: dc.dcId, timeZone: dc.timeZone ?? 'America/Chicago', name: dc.name })),
  });
  return { accountId: created.accountId, key: created.apiKey, keyId: created.keyId };
}
