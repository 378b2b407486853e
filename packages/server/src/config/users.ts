import { z } from 'zod';
import { parsePasswordHash } from '../login/password.js';
import { depthProblem } from './json-depth.js';

/** Claims a user record may not set: the provider derives them from the user, the client or the token. */
const RESERVED_CLAIMS = new Set([
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'auth_time',
  'nonce',
  'acr',
  'amr',
  'azp',
]);

const passwordHash = z.string().superRefine((value, ctx) => {
  const parsed = parsePasswordHash(value);
  if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
});

export const userSchema = z
  .strictObject({
    sub: z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters')
      .describe('The subject identifier in tokens; never reassign it to another person.'),
    username: z
      .string()
      .min(1, 'must not be empty')
      .max(200)
      .describe('What the user types on the login page.'),
    password: z
      .string()
      .min(8, 'must be at least 8 characters')
      .optional()
      .describe('Plain-text password, for local development only; prefer password_hash.'),
    password_hash: passwordHash
      .optional()
      .describe('A `scrypt$N$r$p$salt$key` hash (see hashPassword).'),
    claims: z
      .record(z.string(), z.unknown())
      .superRefine((claims, ctx) => {
        const tooDeep = depthProblem(claims);
        if (tooDeep) ctx.addIssue({ code: 'custom', message: tooDeep });
      })
      .default({})
      .describe('OpenID claims (name, email, ...) released according to the granted scopes.'),
  })
  .superRefine((user, ctx) => {
    const problem = (path: PropertyKey[], message: string) =>
      ctx.addIssue({ code: 'custom', path, message });
    if (user.password === undefined && user.password_hash === undefined) {
      problem(['password'], 'or password_hash is required');
    }
    if (user.password !== undefined && user.password_hash !== undefined) {
      problem(['password_hash'], 'must not be set together with password');
    }
    for (const claim of Object.keys(user.claims)) {
      if (RESERVED_CLAIMS.has(claim))
        problem(['claims', claim], 'is set by the provider, not by the user record');
    }
  });

/** A realm's users: usernames and subjects are each unique within the realm. */
export const usersSchema = z
  .array(userSchema)
  .default([])
  .superRefine((users, ctx) => {
    for (const field of ['username', 'sub'] as const) {
      const seen = new Set<string>();
      users.forEach((user, index) => {
        if (seen.has(user[field])) {
          ctx.addIssue({
            code: 'custom',
            path: [index, field],
            message: `duplicate ${field} "${user[field]}"`,
          });
        }
        seen.add(user[field]);
      });
    }
  });

export type UserConfig = z.output<typeof userSchema>;
