import { randomBytes } from 'node:crypto';
import {
  buildServer,
  hashPassword,
  parseServerConfig,
  type Server,
  type ServerConfigInput,
} from '@gatehouse-oidc/server';
import { freePort } from '../../support/ports.js';

/**
 * The OpenID Provider under test: the standalone server over real HTTP on a loopback port, with
 * one realm set up the way a realm that must certify is (docs/certification.md). Its public
 * origin is https, as the conformance suite requires of every endpoint; `fetch` routes that
 * reserved name (RFC 6761) to the loopback port, so nothing leaves the machine.
 */

export const OP_ORIGIN = 'https://op.conformance.test';
/** Where the conformance suite's relying party lives; never fetched, only compared. */
export const RP_ORIGIN = 'https://rp.conformance.test';
export const REDIRECT_URI = `${RP_ORIGIN}/callback`;
export const POST_LOGOUT_REDIRECT_URI = `${RP_ORIGIN}/post_logout_redirect`;
/** Where the Back-Channel and Front-Channel Logout modules ask static clients to register. */
export const BACKCHANNEL_LOGOUT_URI = `${RP_ORIGIN}/backchannel_logout`;
export const FRONTCHANNEL_LOGOUT_URI = `${RP_ORIGIN}/frontchannel_logout`;

/** Which logout channel a plan's static clients register (each plan has its own clients). */
export type LogoutChannel = 'backchannel' | 'frontchannel';
export const REALM = 'certification';

export const USER = { username: 'buffy', password: 'buffy-conformance-password' } as const;

/** Every claim of OpenID Connect Core §5.1, so the scope modules find all they look for. */
export const USER_CLAIMS = {
  name: 'Buffy Summers',
  given_name: 'Buffy',
  family_name: 'Summers',
  middle_name: 'Anne',
  nickname: 'Buff',
  preferred_username: 'buffy',
  profile: 'https://sunnydale.example/buffy',
  picture: 'https://sunnydale.example/buffy.png',
  website: 'https://sunnydale.example',
  gender: 'female',
  birthdate: '1981-01-19',
  zoneinfo: 'America/Los_Angeles',
  locale: 'en-US',
  updated_at: 1_700_000_000,
  email: 'buffy@sunnydale.example',
  email_verified: true,
  address: {
    formatted: '1630 Revello Drive\nSunnydale, CA 95037\nUSA',
    street_address: '1630 Revello Drive',
    locality: 'Sunnydale',
    region: 'CA',
    postal_code: '95037',
    country: 'USA',
  },
  phone_number: '+1 555 0100',
  phone_number_verified: false,
} as const;

/** A static client of the suite (ClientRegistration "static_client"). */
export interface SuiteClient {
  id: string;
  secret: string;
  method: 'client_secret_basic' | 'client_secret_post';
}

/** `client`, `client_secret_post` and `client2` of the suite's configuration. */
export const CLIENTS = {
  basic: {
    id: 'suite-basic',
    secret: 'suite-basic-secret-0123456789abcdef',
    method: 'client_secret_basic',
  },
  post: {
    id: 'suite-post',
    secret: 'suite-post-secret-0123456789abcdef',
    method: 'client_secret_post',
  },
  second: {
    id: 'suite-second',
    secret: 'suite-second-secret-0123456789abcdef',
    method: 'client_secret_basic',
  },
} as const satisfies Record<string, SuiteClient>;

const SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];

/** The registration the logout plans ask for, with the session (`sid`) required. */
function logoutChannelConfig(channel: LogoutChannel | undefined) {
  if (channel === 'backchannel')
    return {
      backchannel_logout_uri: BACKCHANNEL_LOGOUT_URI,
      backchannel_logout_session_required: true,
    };
  if (channel === 'frontchannel')
    return {
      frontchannel_logout_uri: FRONTCHANNEL_LOGOUT_URI,
      frontchannel_logout_session_required: true,
    };
  return {};
}

function clientConfig(client: SuiteClient, channel?: LogoutChannel) {
  return {
    ...logoutChannelConfig(channel),
    client_id: client.id,
    client_name: `Conformance suite (${client.id})`,
    client_secret: client.secret,
    token_endpoint_auth_method: client.method,
    redirect_uris: [REDIRECT_URI],
    post_logout_redirect_uris: [POST_LOGOUT_REDIRECT_URI],
    response_types: [
      'code',
      'id_token',
      'id_token token',
      'code id_token',
      'code token',
      'code id_token token',
    ],
    response_modes: ['query', 'fragment', 'form_post'],
    grant_types: ['authorization_code', 'refresh_token', 'implicit'],
    scope: SCOPES.join(' '),
    // The suite's requests carry PKCE only in the module that tests it.
    require_pkce: false,
  };
}

/** The settings that make a realm certifiable (docs/certification.md lists them). */
export async function certificationConfig(
  baseUrl: string,
  channel?: LogoutChannel,
): Promise<ServerConfigInput> {
  return {
    base_url: baseUrl,
    cookie_secret: randomBytes(32).toString('base64url'),
    realms: [
      {
        name: REALM,
        signing_alg: 'RS256',
        error_codes: 'registered',
        scopes: SCOPES,
        clients: Object.values(CLIENTS).map((client) => clientConfig(client, channel)),
        users: [
          {
            sub: 'buffy-summers',
            username: USER.username,
            // The cheapest cost the server accepts, so the many sign-ins stay fast.
            password_hash: await hashPassword(USER.password, { N: 2 ** 14 }),
            claims: USER_CLAIMS,
          },
        ],
      },
    ],
  } as ServerConfigInput;
}

/** Milliseconds since the epoch, shared by the server and the checks; moved instead of slept. */
export interface Clock {
  now(): number;
  advance(seconds: number): void;
}

function offsetClock(): Clock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(seconds) {
      offset += seconds * 1000;
    },
  };
}

export interface CertificationOp {
  issuer: string;
  discoveryUrl: string;
  clock: Clock;
  /** fetch for URLs on OP_ORIGIN, sent to the server's loopback port. */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
  server: Server;
  /** What the server reported as unexpected errors: a run ends with none. */
  reported: unknown[];
  /** The form fields of each POST the relying party's back-channel logout endpoint received. */
  backchannelRequests: Array<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * `configure`: the server's config for the base URL, by default the certification settings with
 * `channel`'s clients; the issuer is its first realm's.
 */
export async function startCertificationOp(
  channel?: LogoutChannel,
  configure: (baseUrl: string) => Promise<ServerConfigInput> = (baseUrl) =>
    certificationConfig(baseUrl, channel),
): Promise<CertificationOp> {
  const port = await freePort();
  const clock = offsetClock();
  const config = parseServerConfig(await configure(OP_ORIGIN));
  const reported: unknown[] = [];
  const backchannelRequests: Array<Record<string, string>> = [];
  /** The relying party's back-channel endpoint answers as the suite's does: 200, no-store. */
  const relyingParty = (async (url: string | URL | Request, init?: RequestInit) => {
    if (String(url) !== BACKCHANNEL_LOGOUT_URI) throw new Error(`not the RP: ${String(url)}`);
    backchannelRequests.push(Object.fromEntries(new URLSearchParams(String(init?.body))));
    return new Response('', { status: 200, headers: { 'cache-control': 'no-store' } });
  }) as typeof fetch;
  const server = buildServer(config, {
    now: clock.now,
    report: (error) => reported.push(error),
    fetch: relyingParty,
  });
  await server.app.listen({ port, host: '127.0.0.1' });
  const issuer = `${OP_ORIGIN}/oauth/${config.realms[0]?.name}`;
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    clock,
    server,
    reported,
    backchannelRequests,
    fetch(url, init) {
      const target = new URL(url);
      if (target.origin !== OP_ORIGIN) throw new Error(`not the OP: ${target.href}`);
      return fetch(`http://127.0.0.1:${port}${target.pathname}${target.search}`, init);
    },
    close: () => server.app.close(),
  };
}
