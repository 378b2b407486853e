import { z } from 'zod';
import { absoluteUrl, scopeToken } from './primitives.js';

export const resourceSchema = z.strictObject({
  uri: absoluteUrl
    .refine((value) => !value.includes('#'), 'must not contain a fragment')
    .describe('The resource indicator (RFC 8707) and the `aud` of tokens issued for it.'),
  client_id: z.string().describe('The client the resource authenticates as when it introspects.'),
  scopes: z.array(scopeToken).default([]).describe('Scopes that belong to this resource.'),
});

export type ResourceInput = z.input<typeof resourceSchema>;
export type ResourceConfig = z.output<typeof resourceSchema>;
