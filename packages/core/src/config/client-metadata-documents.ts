import { z } from 'zod';

const DAY = 86_400;

/** A lower-case host name, or `*.` before one for any name below it. */
const HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

const cacheSeconds = (fallback: number) =>
  z
    .number()
    .int('must be a whole number of seconds')
    .min(0)
    .max(7 * DAY)
    .default(fallback);

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): clients whose
 * client_id is the https URL of their metadata, fetched when they first come (docs/client-id-metadata-documents.md).
 */
export const clientMetadataDocumentsSchema = z.strictObject({
  enabled: z
    .boolean()
    .describe('Accept an https URL with a path as a client_id, and fetch the client from it.'),
  allowed_hosts: z
    .array(
      z
        .string()
        .regex(
          HOST_PATTERN,
          'must be a host name in lower case, or "*." before one for any name below it',
        ),
    )
    .min(1)
    .optional()
    .describe(
      'Hosts whose documents are accepted: `client.example.com`, or `*.example.com` for every name below example.com (not example.com itself). Default: any host.',
    ),
  private_networks: z
    .boolean()
    .default(false)
    .describe(
      'Documents and their jwks_uri may be on loopback, private, link-local and other special-use addresses (checked after DNS resolution). Off, they are refused.',
    ),
  max_bytes: z
    .number()
    .int()
    .min(512)
    .max(64 * 1024)
    .default(5120)
    .describe('Largest document accepted, in bytes; a larger one refuses the client.'),
  cache_seconds: z
    .strictObject({
      min: cacheSeconds(300).describe(
        'Seconds a document is kept at least, even when its Cache-Control says `no-store`, `no-cache` or a shorter `max-age`; 0 honours those as they are.',
      ),
      max: cacheSeconds(DAY).describe(
        'Seconds a document is kept at most, whatever its `max-age` says.',
      ),
    })
    .refine((bounds) => bounds.min <= bounds.max, {
      message: 'min must not exceed max',
      path: ['min'],
    })
    .prefault({})
    .describe(
      'Bounds on how long a fetched document is kept: its Cache-Control `max-age` within them, or `min` when it has none. A failed fetch or an invalid document is never kept.',
    ),
});

export type ClientMetadataDocumentsConfig = z.output<typeof clientMetadataDocumentsSchema>;
