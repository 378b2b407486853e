import { createProvider, MemoryStore } from '@gatehouse/core';
import { expect, it } from 'vitest';
import {
  API_RESOURCE,
  clientKeyPair,
  FORM_HEADERS,
  fakeClock,
  form,
  SECRETS,
  testRealm,
} from '../support/fixtures.js';
import { BASE_URL, basicAuthorization, INTROSPECT, TOKEN } from './harness.js';

it('an instance introspects a token signed with a key another instance made a moment ago', async () => {
  const clock = fakeClock();
  const store = new MemoryStore({ now: clock.now });
  const realm = testRealm(await clientKeyPair());
  const instance = () =>
    createProvider({ baseUrl: BASE_URL, realms: [realm], store, now: clock.now });
  const [a, b] = [instance(), instance()];
  const post = (provider: typeof a, path: string, fields: Record<string, string>, headers = {}) =>
    provider.handle({
      method: 'POST',
      path,
      query: '',
      headers: { ...FORM_HEADERS, ...headers },
      body: form(fields),
    });
  const issue = async () => {
    const response = await post(a, TOKEN, {
      grant_type: 'client_credentials',
      client_id: 'post-client',
      client_secret: SECRETS.post,
      resource: API_RESOURCE,
    });
    return JSON.parse(response.body ?? '{}').access_token as string;
  };
  const introspectAtB = async (token: string) =>
    JSON.parse(
      (
        await post(
          b,
          INTROSPECT,
          { token },
          { authorization: basicAuthorization('api', SECRETS.api) },
        )
      ).body ?? '{}',
    );

  // B caches the key list, then A rotates and signs with a key B has not seen.
  expect((await introspectAtB(await issue())).active).toBe(true);
  await a.rotateKeys('test');
  expect((await introspectAtB(await issue())).active).toBe(true);
});
