import { z } from 'zod';
import { positiveSeconds } from './primitives.js';

/** A realm's CIBA settings (OpenID Connect CIBA Core 1.0, poll mode); present means enabled. */
export const cibaSchema = z
  .strictObject({
    interval: positiveSeconds(5, 60).describe(
      'Minimum seconds between polls, counted from the initiation; a faster poll cancels the request.',
    ),
    expires_in: positiveSeconds(120, 3600).describe(
      'Seconds a request waits for the user when the client sends no requested_expiry.',
    ),
    max_expires_in: positiveSeconds(600, 86_400).describe(
      'The longest requested_expiry honoured; longer requests get this.',
    ),
  })
  .refine((ciba) => ciba.expires_in <= ciba.max_expires_in, {
    message: 'expires_in must not exceed max_expires_in',
    path: ['expires_in'],
  });

export type CibaConfig = z.output<typeof cibaSchema>;
