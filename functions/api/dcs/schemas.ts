import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

export const Dc = z.withMeta(
  z.object({
    id: z.string(),
    name: z.string(),
    time_zone: z.withMeta(z.string(), { description: 'IANA time zone' }),
  }),
  { id: 'Dc' },
);

/** The DC rows: an API key's and read-only. */
export const dcsEndpoint = endpointGroup({ tag: 'DCs' });
