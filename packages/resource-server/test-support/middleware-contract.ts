import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResourceServer, type ResourceServer } from '../src/index.js';
import {
  type DpopKey,
  dpopKey,
  ISSUER,
  METADATA_URL,
  RESOURCE,
  type TestIssuer,
  testIssuer,
} from './issuer.js';

/**
 * An app of one framework with the kit mounted: its metadata at `server.metadataPath`,
 * `GET /things` behind `requireToken(server)` and `POST /things` behind
 * `requireToken(server, { scopes: ['api:write'] })`, each answering `{ sub, scopes, dpopJkt }` of
 * the token its handler received.
 */
export interface MountedApp {
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** The same requests, the same answers, for the middleware of every framework. */
export function describeMiddleware(
  framework: string,
  mount: (server: ResourceServer) => Promise<MountedApp>,
): void {
  describe(`${framework} middleware`, () => {
    let issuer: TestIssuer;
    let key: DpopKey;
    let app: MountedApp;

    beforeAll(async () => {
      issuer = await testIssuer();
      key = await dpopKey();
      const server = createResourceServer({
        resource: RESOURCE,
        issuer: ISSUER,
        scopes: ['api:read'],
        fetch: issuer.fetch,
        metadata: { resource_name: 'Things' },
      });
      app = await mount(server);
    });
    afterAll(() => app?.close());

    const bearer = async (claims = {}) => ({
      authorization: `Bearer ${await issuer.token(claims)}`,
    });

    it('serves the RFC 9728 metadata', async () => {
      const response = await app.request('/.well-known/oauth-protected-resource');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [ISSUER],
        resource_name: 'Things',
      });
    });

    it('answers a request without a token 401 with the challenge, never reaching the route', async () => {
      const response = await app.request('/things');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(
        new RegExp(`^Bearer scope="api:read", resource_metadata="${METADATA_URL}", DPoP `),
      );
      expect(await response.text()).toBe('');
    });

    it('hands the verified token to the route', async () => {
      const response = await app.request('/things', { headers: await bearer() });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ sub: 'alice', scopes: ['api:read'] });
    });

    it('answers a bad token 401 invalid_token, a missing scope 403 insufficient_scope', async () => {
      const expired = await app.request('/things', { headers: await bearer({ exp: 1 }) });
      expect(expired.status).toBe(401);
      expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(await expired.json()).toMatchObject({ error: 'invalid_token' });
      const readOnly = await app.request('/things', { method: 'POST', headers: await bearer() });
      expect(readOnly.status).toBe(403);
      expect(readOnly.headers.get('www-authenticate')).toMatch(
        /^Bearer error="insufficient_scope", error_description="[^"]+", scope="api:read api:write"/,
      );
      const writer = await bearer({ scope: 'api:read api:write' });
      expect((await app.request('/things', { method: 'POST', headers: writer })).status).toBe(200);
    });

    it('checks DPoP proofs against the resource origin and the mounted path', async () => {
      const token = await issuer.token({ cnf: { jkt: key.jkt } });
      const dpop = await key.proof({ htm: 'GET', htu: `${RESOURCE}/things`, accessToken: token });
      const response = await app.request('/things?x=1', {
        headers: { authorization: `DPoP ${token}`, dpop },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        sub: 'alice',
        scopes: ['api:read'],
        dpopJkt: key.jkt,
      });
      const asBearer = await app.request('/things', {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(asBearer.status).toBe(401);
    });
  });
}

/** What each app's routes answer: the parts of the token a test checks. */
export const tokenSummary = (
  token: { claims: { sub?: string }; scopes: readonly string[]; dpopJkt?: string } | undefined,
) => ({
  sub: token?.claims.sub,
  scopes: token?.scopes,
  ...(token?.dpopJkt ? { dpopJkt: token.dpopJkt } : {}),
});
