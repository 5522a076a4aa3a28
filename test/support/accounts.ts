/**
 * Test accounts made through the same domain code the admin CLI uses, usage key registered in the API's
 * usage plan (through the local AWS endpoint, as the operator). Import after startTestApi.
 */
export async function createTestAccount(name: string, dcs: { dcId: string; timeZone?: string }[]) {
  const { createAccountWithUsageKey } = await import('../../functions/domain/usage-keys');
  const created = await createAccountWithUsageKey({
    name,
    dcs: dcs.map((dc) => ({ dcId: dc.dcId, timeZone: dc.timeZone ?? 'America/Chicago' })),
  });
  return { accountId: created.accountId, key: created.apiKey, keyId: created.keyId };
}
