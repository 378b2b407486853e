import type { JWK } from 'jose';
import { condition, fail, type ModuleRun } from './checks.js';
import type { CertificationOp, SuiteClient } from './op.js';
import { type HttpAnswer, readAnswer } from './state.js';

/** The suite's back-channel calls: discovery, the JWKS, the token and userinfo endpoints. */

export async function getJson(op: CertificationOp, url: string): Promise<HttpAnswer> {
  return readAnswer(await op.fetch(url, { headers: { accept: 'application/json' } }));
}

/** GetDynamicServerConfiguration: the discovery document, or the module stops. */
export async function discover(op: CertificationOp, run: ModuleRun) {
  const answer = await getJson(op, op.discoveryUrl);
  run.require(
    condition('GetDynamicServerConfiguration', (found: HttpAnswer) => {
      if (!found.json) fail(`discovery answered ${found.status} without a JSON object`);
    }),
    answer,
  );
  return { answer, server: answer.json as Record<string, unknown> };
}

/** FetchServerKeys. */
export async function fetchServerKeys(op: CertificationOp, run: ModuleRun, jwksUri: unknown) {
  const answer = typeof jwksUri === 'string' ? await getJson(op, jwksUri) : undefined;
  run.require(
    condition('FetchServerKeys', (found: HttpAnswer | undefined) => {
      if (!found?.json) fail('no JSON JWK set at jwks_uri');
    }),
    answer,
  );
  return answer?.json as { keys: JWK[] };
}

/** The client's credentials as its registered method sends them (AddBasicAuth… / AddFormBased…). */
export function clientAuthentication(
  client: SuiteClient,
  form: Record<string, string>,
): { headers: Record<string, string>; form: Record<string, string> } {
  if (client.method === 'client_secret_post') {
    return { headers: {}, form: { ...form, client_id: client.id, client_secret: client.secret } };
  }
  // RFC 6749 §2.3.1: each part form-encoded before the Basic encoding.
  const user = encodeURIComponent(client.id);
  const password = encodeURIComponent(client.secret);
  const basic = Buffer.from(`${user}:${password}`).toString('base64');
  return { headers: { authorization: `Basic ${basic}` }, form };
}

/** CallTokenEndpointAndReturnFullResponse. */
export async function callTokenEndpoint(
  op: CertificationOp,
  tokenEndpoint: unknown,
  client: SuiteClient,
  form: Record<string, string>,
): Promise<HttpAnswer> {
  const request = clientAuthentication(client, form);
  const response = await op.fetch(String(tokenEndpoint), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      ...request.headers,
    },
    body: new URLSearchParams(request.form),
  });
  return readAnswer(response);
}

/** CallUserInfoEndpoint (GET or POST with a Bearer header) or …WithBearerTokenInBody. */
export async function callUserinfo(
  op: CertificationOp,
  userinfoEndpoint: unknown,
  accessToken: string,
  how: 'get' | 'post-header' | 'post-body',
): Promise<HttpAnswer> {
  const url = String(userinfoEndpoint);
  if (how === 'post-body') {
    return readAnswer(
      await op.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ access_token: accessToken }),
      }),
    );
  }
  return readAnswer(
    await op.fetch(url, {
      method: how === 'get' ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    }),
  );
}
