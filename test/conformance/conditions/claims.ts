import { fail } from '../support/checks.js';

/**
 * The standard claims of OpenID Connect Core §5.1 and what each must look like, and the claims
 * each scope stands for (§5.4): what the suite validates ID tokens and userinfo answers against.
 */

type Validator = (value: unknown) => boolean;

const nonEmptyString: Validator = (value) =>
  typeof value === 'string' && value.trim() !== '' && value.toLowerCase() !== 'null';
const boolean: Validator = (value) => typeof value === 'boolean';
const number: Validator = (value) => typeof value === 'number';
const object: Validator = (value) => value !== null && typeof value === 'object';

/** §5.1: YYYY-MM-DD (0000 for an unknown year) or YYYY, a year from 1850 to now. */
const birthdate: Validator = (value) => {
  if (!nonEmptyString(value)) return false;
  const text = value as string;
  const saneYear = (year: number) => year >= 1850 && year <= new Date().getUTCFullYear();
  if (/^\d{4}$/.test(text)) return saneYear(Number(text));
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year === 0 ? 2000 : year, month - 1, day));
  const real = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real && (year === 0 || saneYear(year));
};

const ADDRESS_MEMBERS = [
  'formatted',
  'street_address',
  'locality',
  'region',
  'postal_code',
  'country',
];

const address: Validator = (value) =>
  object(value) &&
  Object.keys(value as object).length > 0 &&
  Object.entries(value as Record<string, unknown>).every(
    ([member, part]) => !ADDRESS_MEMBERS.includes(member) || nonEmptyString(part),
  );

const STANDARD_CLAIMS: Record<string, Validator> = {
  sub: nonEmptyString,
  name: nonEmptyString,
  given_name: nonEmptyString,
  family_name: nonEmptyString,
  middle_name: nonEmptyString,
  nickname: nonEmptyString,
  preferred_username: nonEmptyString,
  profile: nonEmptyString,
  picture: nonEmptyString,
  website: nonEmptyString,
  email: nonEmptyString,
  email_verified: boolean,
  gender: nonEmptyString,
  birthdate,
  zoneinfo: nonEmptyString,
  locale: nonEmptyString,
  phone_number: nonEmptyString,
  phone_number_verified: boolean,
  address,
  updated_at: number,
  _claim_names: object,
  _claim_sources: object,
  txn: nonEmptyString,
};

/** The claims of `claims` no standard names (the suite's `…_unknown_claims`). */
export function unknownClaims(claims: Record<string, unknown>): string[] {
  return Object.keys(claims).filter((name) => STANDARD_CLAIMS[name] === undefined);
}

/** ValidateIdTokenStandardClaims / ValidateUserInfoStandardClaims: known claims well formed. */
export function validateStandardClaims(claims: Record<string, unknown>, where: string): void {
  if (Object.keys(claims).length === 0) fail(`${where}: no identity claims`);
  const wrong = Object.entries(claims)
    .filter(([name, value]) => STANDARD_CLAIMS[name] !== undefined && !STANDARD_CLAIMS[name](value))
    .map(([name]) => name);
  if (wrong.length > 0) fail(`${where}: malformed standard claims ${wrong.join(', ')}`);
}

/** §5.4, as the suite reads it: the claims each scope asks for. */
export const SCOPE_CLAIMS: Record<string, readonly string[]> = {
  openid: ['sub'],
  profile: [
    'name',
    'given_name',
    'family_name',
    'middle_name',
    'nickname',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
    'preferred_username',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
  offline_access: [],
};

/** VerifyScopesReturnedIn…: every claim of every requested scope is there. */
export function verifyScopeClaims(
  claims: Record<string, unknown>,
  scope: string,
  where: string,
): void {
  const expected = scope.split(' ').flatMap((name) => SCOPE_CLAIMS[name] ?? []);
  const missing = expected.filter((name) => !(name in claims));
  if (missing.length > 0)
    fail(`${where} lacks claims of the requested scopes: ${missing.join(', ')}`);
}

/** EnsureIdTokenUpdatedAtValid / EnsureUserInfoUpdatedAtValid: a time after 1990, not ahead. */
export function checkUpdatedAt(updatedAt: unknown, now: number, where: string): void {
  if (updatedAt === undefined) return;
  if (typeof updatedAt !== 'number') fail(`updated_at in ${where} is not a number`);
  if (updatedAt * 1000 > now + 5 * 60_000) fail(`updated_at in ${where} is in the future`);
  if (updatedAt < Date.UTC(1990, 0, 1) / 1000) fail(`updated_at in ${where} is before 1990`);
}
