import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect } from 'vitest';
import { AGENT_CLIENT_ID } from '../../examples/mcp-server/src/realm.js';
import { LOOPBACK_TLS } from '../support/tls.js';

/**
 * An MCP agent on a user's machine, as the official TypeScript SDK makes one: its `Client` over
 * Streamable HTTP, and its OAuth side (`OAuthClientProvider`), which the SDK drives from the MCP
 * server's first 401 on — RFC 9728 and RFC 8414 discovery, PKCE, `resource`, refresh, step-up.
 * The agent listens for the redirect on a loopback port the system picked.
 */

/** How the agent presents itself to the authorization server. */
export interface AgentIdentity {
  /** Its client information, when it has one already; without it, the SDK registers. */
  clientInformation?: OAuthClientInformationMixed;
  /** The https URL of its client ID metadata document, which the SDK then signs in with. */
  clientMetadataUrl?: string;
  /** Stops what the identity needs (the server of its document). */
  close?(): Promise<void>;
}

/**
 * How the agent is known to the authorization server, one function per kind of client, called
 * with the issuer the MCP server names.
 */
export interface ClientKind {
  name: string;
  identify(issuer: string): Promise<AgentIdentity>;
}

/** The example's pre-registered native public client (examples/mcp-server/src/realm.ts). */
export const preRegisteredNativeClient: ClientKind = {
  name: 'a pre-registered native client',
  // Bound to the issuer, so the SDK presents it to no other authorization server.
  identify: async (issuer) => ({ clientInformation: { client_id: AGENT_CLIENT_ID, issuer } }),
};

/**
 * A client the SDK registers itself (RFC 7591) at the realm's registration endpoint, with no
 * initial access token (the SDK sends none), and whose answer it keeps.
 */
export const dynamicallyRegisteredClient: ClientKind = {
  name: 'a dynamically registered client',
  identify: async () => ({}),
};

/**
 * A client whose client_id is the https URL of its metadata document, served from loopback by
 * the test with a certificate the authorization server's outbound transport is given
 * (`LOOPBACK_TLS`); the realm must allow documents on private networks.
 */
export const metadataDocumentClient: ClientKind = {
  name: 'a client ID metadata document client',
  async identify() {
    const document = await serveMetadataDocument();
    return { clientMetadataUrl: document.url, close: document.close };
  },
};

export const CLIENT_KINDS: readonly ClientKind[] = [
  preRegisteredNativeClient,
  dynamicallyRegisteredClient,
  metadataDocumentClient,
];

/**
 * The agent's metadata document at an https URL on loopback. A document is the same for every
 * copy of the agent, wherever it listens: its loopback redirect URI has no port (RFC 8252 §7.3).
 */
async function serveMetadataDocument(): Promise<{ url: string; close(): Promise<void> }> {
  const path = '/oauth/mcp-agent.json';
  const server = createHttpsServer(LOOPBACK_TLS, (request, response) => {
    if (request.url !== path) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const document = {
    client_id: url,
    client_name: 'Gatehouse test agent',
    application_type: 'native',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The user's browser, from the authorization URL to where it is sent back (not fetched). */
export type SignIn = (authorizationUrl: URL) => Promise<URL>;

/** What the agent sent to the token endpoint, secrets and codes left out. */
export interface TokenRequest {
  grant_type: string | null;
  resource: string | null;
  scope: string | null;
}

/** The agent's OAuth state, kept in memory as the SDK asks (a real agent keeps it on disk). */
class AgentOAuth implements OAuthClientProvider {
  clientMetadataUrl?: string;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';
  #state = '';
  /** Where the SDK last sent the user to sign in. */
  pendingAuthorization: URL | undefined;

  constructor(
    readonly redirectUrl: string,
    identity: AgentIdentity,
  ) {
    this.#client = identity.clientInformation;
    if (identity.clientMetadataUrl) this.clientMetadataUrl = identity.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Gatehouse test agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state() {
    this.#state = randomBytes(16).toString('base64url');
    return this.#state;
  }
  get expectedState() {
    return this.#state;
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.#client = information;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.pendingAuthorization = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }

  /**
   * SDK 1.x answers a step-up challenge by refreshing, which cannot widen the scope (RFC 6749
   * §6), and then gives up (typescript-sdk#2255). As the SDK's next major does, a refresh token
   * is not offered when the challenge asks for scopes the tokens lack: the SDK then sends the
   * user to authorize the wider scope.
   */
  challenged(scope: string) {
    const held = new Set(this.#tokens?.scope?.split(' '));
    if (this.#tokens && !scope.split(' ').every((each) => held.has(each))) {
      const { refresh_token: _, ...withoutRefresh } = this.#tokens;
      this.#tokens = withoutRefresh;
    }
  }

  /** As if the access token had expired: the MCP server refuses it, the SDK refreshes. */
  spoilAccessToken() {
    if (this.#tokens) this.#tokens = { ...this.#tokens, access_token: 'expired' };
  }
}

export interface McpAgent {
  readonly client: Client;
  readonly identity: AgentIdentity;
  /** The client_id of every registration the SDK made, in order. */
  readonly registrations: readonly string[];
  /** The client_id the SDK signs in with. */
  clientId(): string | undefined;
  /** Every request to the token endpoint, in order. */
  readonly tokenRequests: readonly TokenRequest[];
  /** Every authorization URL the user was sent to, in order. */
  readonly authorizations: readonly URL[];
  tokens(): OAuthTokens | undefined;
  /** Connects, signing the user in when the MCP server asks for a token. */
  connect(): Promise<void>;
  /** Calls a tool, signing the user in again when the server asks for a wider scope. */
  callTool(name: string, args?: Record<string, unknown>): Promise<string>;
  spoilAccessToken(): void;
  close(): Promise<void>;
}

/**
 * An agent for the MCP server at `mcpUrl`, known to `issuer` as `kind` says, whose user signs in
 * with `signIn`.
 */
export async function startAgent(options: {
  mcpUrl: string;
  issuer: string;
  kind: ClientKind;
  signIn: SignIn;
}): Promise<McpAgent> {
  const callbacks: URL[] = [];
  const listener = createServer((request, response) => {
    callbacks.push(new URL(request.url ?? '/', redirectOrigin));
    response.end('You can close this window.');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const redirectOrigin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;

  const identity = await options.kind.identify(options.issuer);
  const oauth = new AgentOAuth(`${redirectOrigin}/callback`, identity);
  const tokenRequests: TokenRequest[] = [];
  const authorizations: URL[] = [];
  const registrations: string[] = [];
  const registrationEndpoint = `${options.issuer}/register`;
  const watchingFetch = async (url: string | URL, init?: RequestInit) => {
    const sent = init?.body;
    if (sent instanceof URLSearchParams && sent.has('grant_type')) {
      tokenRequests.push({
        grant_type: sent.get('grant_type'),
        resource: sent.get('resource'),
        scope: sent.get('scope'),
      });
    }
    const response = await fetch(url, init);
    if (String(url) === registrationEndpoint && response.ok) {
      const registered = (await response.clone().json()) as { client_id: string };
      registrations.push(registered.client_id);
    }
    const { error, scope } = extractWWWAuthenticateParams(response);
    if (response.status === 403 && error === 'insufficient_scope' && scope) oauth.challenged(scope);
    return response;
  };
  const client = new Client({ name: 'gatehouse-test-agent', version: '1.0.0' });
  let transport: StreamableHTTPClientTransport | undefined;

  /** The user signs in where the SDK sent them; the browser brings the code to the listener. */
  async function signIn(): Promise<string> {
    const url = oauth.pendingAuthorization;
    if (!url) throw new Error('the SDK sent the user nowhere');
    authorizations.push(url);
    const sentBack = await options.signIn(url);
    expect(sentBack.origin).toBe(redirectOrigin);
    await fetch(sentBack);
    const callback = callbacks.at(-1);
    expect(callback?.searchParams.get('state')).toBe(oauth.expectedState);
    expect(callback?.searchParams.get('iss')).toBe(options.issuer);
    const code = callback?.searchParams.get('code');
    if (!code) throw new Error(`no code in ${callback}`);
    return code;
  }

  /** Runs `action`; when the SDK sent the user to sign in, signs in, finishes, runs it again. */
  async function withSignIn<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !transport) throw error;
      await transport.finishAuth(await signIn());
      return action();
    }
  }

  return {
    client,
    identity,
    registrations,
    clientId: () => oauth.clientInformation()?.client_id,
    tokenRequests,
    authorizations,
    tokens: () => oauth.tokens(),
    async connect() {
      await withSignIn(() => {
        // A transport starts once: a new one for each attempt, the OAuth state carries over.
        transport = new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
          authProvider: oauth,
          fetch: watchingFetch,
        });
        return client.connect(transport);
      });
    },
    async callTool(name, args = {}) {
      const result = await withSignIn(() => client.callTool({ name, arguments: args }));
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      const [first] = result.content as { type: string; text?: string }[];
      return first?.text ?? '';
    },
    spoilAccessToken: () => oauth.spoilAccessToken(),
    async close() {
      await client.close();
      await new Promise((resolve) => listener.close(resolve));
      await identity.close?.();
    },
  };
}
