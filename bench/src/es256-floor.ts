import { generateKeyPairSync, sign, verify } from 'node:crypto';

/** One ES256 signature and one verification, each as a call for `cpuMicrosPerCall`. */
export interface Es256Operations {
  readonly sign: () => Promise<void>;
  readonly verify: () => Promise<void>;
}

const ES256 = { dsaEncoding: 'ieee-p1363' } as const;

/**
 * The cryptography a token request cannot do without, on `node:crypto` synchronously (what the
 * node-crypto signer does on its thread and the verifier in place), over `signingInput`: the
 * header and payload of a token the realm issues, so each call hashes what a request hashes.
 */
export function es256Operations(signingInput: string): Es256Operations {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = Buffer.from(signingInput);
  const signature = sign('sha256', input, { key: privateKey, ...ES256 });
  return {
    sign: async () => {
      sign('sha256', input, { key: privateKey, ...ES256 });
    },
    verify: async () => {
      if (!verify('sha256', input, { key: publicKey, ...ES256 }, signature))
        throw new Error('the ES256 signature did not verify');
    },
  };
}
