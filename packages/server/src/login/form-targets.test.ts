import { describe, expect, it } from 'vitest';
import { redirectSources } from './form-targets.js';

describe('redirectSources', () => {
  it('keeps the origins of web redirect URIs and the schemes of native ones', () => {
    expect(
      redirectSources([
        'https://app.example.com/cb',
        'https://app.example.com/other',
        'http://127.0.0.1:8080/callback',
        'com.example.app:/oauth',
      ]),
    ).toEqual(['https://app.example.com', 'http://127.0.0.1:8080', 'com.example.app:']);
  });

  it('lets a native app be redirected to its loopback host on any port', () => {
    expect(
      redirectSources(
        ['http://127.0.0.1/callback', 'http://[::1]:8400/cb', 'https://app.example.com/cb'],
        'native',
      ),
    ).toEqual(['http://127.0.0.1:*', 'http://[::1]:*', 'https://app.example.com']);
  });
});
