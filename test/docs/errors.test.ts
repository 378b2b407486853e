import { readFileSync } from 'node:fs';
import { createProvider } from '@gatehouse-oidc/core';
import { describe, expect, it } from 'vitest';
import {
  ERROR_DOCS_PATH,
  REGENERATE_ERROR_DOCS,
  renderErrorDocs,
} from '../../packages/core/scripts/error-docs.js';

describe('docs/errors.md', () => {
  it('has the table the error registry gives', () => {
    const committed = readFileSync(ERROR_DOCS_PATH, 'utf8');
    expect(committed, `docs/errors.md is out of date; run: ${REGENERATE_ERROR_DOCS}`).toBe(
      renderErrorDocs(committed),
    );
  });
});

describe('docs/errors.md, the registered dialect', () => {
  it('gives a realm that redirects a missing nonce as invalid_request', async () => {
    const doc = readFileSync(ERROR_DOCS_PATH, 'utf8');
    const snippet = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
    if (!snippet) throw new Error('docs/errors.md lost its realm snippet');
    const realm = JSON.parse(snippet);
    const provider = createProvider({
      baseUrl: 'https://id.example.com',
      realms: [
        {
          ...realm,
          clients: [
            {
              client_id: 'app',
              token_endpoint_auth_method: 'none',
              redirect_uris: ['https://app.example.com/cb'],
              response_types: ['id_token'],
            },
          ],
        },
      ],
    });
    const response = await provider.handle({
      method: 'GET',
      path: `/oauth/${realm.name}/authorize`,
      query:
        'response_type=id_token&client_id=app&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=openid',
      headers: {},
    });
    const params = new URLSearchParams(new URL(response.headers.location ?? '').hash.slice(1));
    expect(params.get('error')).toBe('invalid_request');
  });
});
