import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
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

/**
 * An MCP agent on a user's machine, as the official TypeScript SDK makes one: its `Client` over
 * Streamable HTTP, and its OAuth side (`OAuthClientProvider`), which the SDK drives from the MCP
 * server's first 401 on — RFC 9728 and RFC 8414 discovery, PKCE, `resource`, refresh, step-up.
 * The agent listens for the redirect on a loopback port the system picked.
 */

/**
 * How the agent is known to the authorization server, one function per kind of client, called
 * with the issuer the MCP server names. Dynamically registered clients (RFC 7591) and client ID
 * metadata document clients join this list as Gatehouse serves them (issue 20): the first by
 * returning no client information (the SDK then registers, storing the answer through
 * `saveClientInformation`), the second with a `clientMetadataUrl`.
 */
export interface ClientKind {
  name: string;
  identify(issuer: string): {
    clientInformation?: OAuthClientInformationMixed;
    clientMetadataUrl?: string;
  };
}

/** The example's pre-registered native public client (examples/mcp-server/src/realm.ts). */
export const preRegisteredNativeClient: ClientKind = {
  name: 'a pre-registered native client',
  // Bound to the issuer, so the SDK presents it to no other authorization server.
  identify: (issuer) => ({ clientInformation: { client_id: AGENT_CLIENT_ID, issuer } }),
};

export const CLIENT_KINDS: readonly ClientKind[] = [preRegisteredNativeClient];

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
    identity: ReturnType<ClientKind['identify']>,
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

  const oauth = new AgentOAuth(`${redirectOrigin}/callback`, options.kind.identify(options.issuer));
  const tokenRequests: TokenRequest[] = [];
  const authorizations: URL[] = [];
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
    },
  };
}
