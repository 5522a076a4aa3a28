import { type Dc, listDcs as readDcs } from '../data/accounts';

export type { Dc };

/** The DCs of an account (GET /dcs): all of them, as the table keeps them. */
export function listDcs(accountId: string): Promise<Dc[]> {
  return readDcs(accountId);
}
