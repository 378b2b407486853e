import {
  createProvider,
  type OutboundTransport,
  type Provider,
  type RealmInput,
} from '@gatehouse-oidc/core';
import { nodeOutbound } from '@gatehouse-oidc/node-outbound';
import { accounts } from './users.js';

/** Every example mounts Gatehouse at /auth and serves this one realm. */
export const REALM = 'demo';
export const DISCOVERY_PATH = `/auth/oauth/${REALM}/.well-known/openid-configuration`;

/** One web client: authorization code with PKCE, and refresh tokens. */
const DEMO_REALM: RealmInput = {
  name: REALM,
  scopes: ['openid', 'profile', 'email'],
  clients: [
    {
      client_id: 'demo-web',
      client_name: 'Demo web app',
      client_secret: 'demo-web-secret-change-me',
      redirect_uris: ['http://127.0.0.1:8080/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid profile email',
    },
  ],
};

/**
 * What an app adds to the demo realm: more scopes, protected resources and clients (the
 * interoperability tests add their relying parties, the MCP example its server and agent),
 * agents that register themselves or are known by their Client ID Metadata Documents, and the
 * identity providers whose ID-JAGs the jwt-bearer grant accepts.
 */
export type DemoRealmAdditions = Pick<
  RealmInput,
  | 'scopes'
  | 'resources'
  | 'clients'
  | 'client_id_metadata_documents'
  | 'registration'
  | 'trusted_issuers'
>;

/** How an example app is set up. */
export interface DemoAppOptions {
  /** The public URL browsers reach the app at. */
  origin: string;
  /** What to add to the demo realm. */
  realm?: DemoRealmAdditions;
  /**
   * How Gatehouse sends its outbound requests (client metadata documents); default Node.js's
   * transport, which keeps them off private addresses and trusts Node.js's roots.
   */
  outbound?: OutboundTransport;
}

/**
 * The provider of an app whose public URL is `origin`, with Gatehouse mounted at /auth, the user
 * table below as its accounts, and the app's own /login and /consent pages for interactions.
 */
export function createDemoProvider({
  origin,
  realm: additions = {},
  outbound = nodeOutbound(),
}: DemoAppOptions): Provider {
  return createProvider({
    baseUrl: `${origin}/auth`,
    accounts,
    outbound,
    // Where Gatehouse sends the browser when it needs the user: the app's /login or /consent.
    interactionUrl: ({ prompt, id }) => `${origin}/${prompt}?interaction=${encodeURIComponent(id)}`,
    realms: [
      {
        ...DEMO_REALM,
        scopes: [...(DEMO_REALM.scopes ?? []), ...(additions.scopes ?? [])],
        resources: additions.resources ?? [],
        clients: [...(DEMO_REALM.clients ?? []), ...(additions.clients ?? [])],
        ...(additions.client_id_metadata_documents && {
          client_id_metadata_documents: additions.client_id_metadata_documents,
        }),
        ...(additions.registration && { registration: additions.registration }),
        ...(additions.trusted_issuers && { trusted_issuers: additions.trusted_issuers }),
      },
    ],
  });
}

/** What an example prints once it listens: where it is, and the demo client and users. */
export const banner = (name: string, origin: string) => `${name} on ${origin}
Discovery: ${origin}${DISCOVERY_PATH}
Client: demo-web / demo-web-secret-change-me, redirect_uri http://127.0.0.1:8080/callback
Users: alice / alice-demo-password, bob / bob-demo-password`;
