/** Test accounts made through the same domain code the admin CLI uses. Import after startTestApi. */
export async function createTestAccount(name: string, dcs: { dcId: string; timeZone?: string }[]) {
  const { createAccount } = await import('../../functions/domain/accounts');
  const created = await createAccount({
    name,
    dcs: dcs.map((dc) => ({ dcId: dc.dcId, timeZone: dc.timeZone ?? 'America/Chicago' })),
  });
  return { accountId: created.accountId, key: created.apiKey, keyId: created.keyId };
}
