import { fakeClock } from '@gatehouse-oidc/core/testing';
import { expect, it } from 'vitest';
import { API_RESOURCE } from '../support/fixtures.js';
import { createHarness, RecordingStore } from './harness.js';

it('an instance introspects a token signed with a key another instance made a moment ago', async () => {
  const clock = fakeClock();
  const store = new RecordingStore({ now: clock.now });
  const instance = () => createHarness({ clock, store: () => store });
  const [a, b] = [await instance(), await instance()];
  const forApi = { resource: API_RESOURCE };

  // B caches the key list, then A rotates and signs with a key B has not seen.
  expect((await b.introspect('api', await a.issueToken('post-client', forApi))).json().active).toBe(
    true,
  );
  await a.provider.rotateKeys('test');
  expect((await b.introspect('api', await a.issueToken('post-client', forApi))).json().active).toBe(
    true,
  );
});
