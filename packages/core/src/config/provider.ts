import { z } from 'zod';
import { baseUrl } from './primitives.js';

/** The plain-data options of `createProvider`; the adapters it takes (store, keys…) are typed in provider.ts. */
export const providerOptionsSchema = z.strictObject({
  baseUrl: baseUrl.describe(
    'Public origin plus mount path Gatehouse is reached at, without query or fragment; trailing slashes are removed. The issuer of realm R is `{baseUrl}/oauth/R`.',
  ),
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(64 * 1024)
    .describe('Largest accepted request body in bytes; a larger one is answered 413.'),
});
