import { readFileSync } from 'node:fs';

/**
 * A self-signed certificate for `localhost`, `127.0.0.1` and `agent.cimd.test` (valid until
 * 2126), and its key: for https servers on loopback that a test's outbound transport trusts
 * (`nodeOutbound({ ca: [LOOPBACK_TLS.cert] })`). It protects nothing: the key is public.
 */
export const LOOPBACK_TLS = {
  cert: readFileSync(new URL('./tls/loopback-cert.pem', import.meta.url), 'utf8'),
  key: readFileSync(new URL('./tls/loopback-key.pem', import.meta.url), 'utf8'),
};
