import { beforeAll, describe, expect, it } from 'vitest';
import { browser, clientParams } from './browser.js';
import { createHarness, endpointPath, type Harness, type TestResponse } from './harness.js';

// RFC 9207: every authorization response names its issuer, so a client talking to several
// authorization servers can tell which one answered (mix-up attacks), errors included.

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});

type Outcome = (mode: string) => Promise<TestResponse>;

const OUTCOMES: ReadonlyArray<[string, Outcome]> = [
  ['a code', (mode) => browser(h).signIn({ response_mode: mode })],
  [
    'an error found in the request',
    (mode) => browser(h).authorize({ response_mode: mode, scope: 'openid admin' }),
  ],
  [
    'an error of prompt=none',
    (mode) => browser(h).authorize({ response_mode: mode, prompt: 'none' }),
  ],
  [
    'the user refusing on the login page',
    async (mode) => {
      const b = browser(h);
      return b.finish(await b.authorize({ response_mode: mode }), { error: 'access_denied' });
    },
  ],
];

describe('iss in every authorization response (RFC 9207)', () => {
  describe.each(['query', 'fragment', 'form_post'])('response_mode=%s', (mode) => {
    it.each(OUTCOMES)('with %s', async (_, outcome) => {
      const received = clientParams(await outcome(mode));
      expect(received.mode).toBe(mode);
      expect(received.params.iss).toBe(h.issuer());
    });
  });

  it.each([
    ['fragment', 'fragment'],
    ['form_post', 'form_post'],
    // Tokens never go in a query: the refusal comes back in the fragment, with iss too.
    ['query', 'fragment'],
  ])('with tokens, response_mode=%s: in the %s', async (mode, delivered) => {
    const received = clientParams(
      await browser(h).signIn({ response_mode: mode, response_type: 'code id_token token' }),
    );
    expect(received.mode).toBe(delivered);
    expect(received.params.iss).toBe(h.issuer());
  });

  it('is announced by discovery', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });
});
