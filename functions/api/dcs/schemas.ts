import * as z from 'zod';
import { endpointGroup } from '../define';

export const Dc = z
  .object({ id: z.string(), name: z.string(), time_zone: z.string().meta({ description: 'IANA time zone' }) })
  .meta({ id: 'Dc' });

/** The DC rows: an API key's and read-only. */
export const dcsEndpoint = endpointGroup({ tag: 'DCs' });
