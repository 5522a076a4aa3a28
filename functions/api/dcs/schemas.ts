import * as z from 'zod';

export const Dc = z
  .object({ id: z.string(), name: z.string(), time_zone: z.string().meta({ description: 'IANA time zone' }) })
  .meta({ id: 'Dc' });
