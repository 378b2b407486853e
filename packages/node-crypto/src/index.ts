export { nodeCryptoSigner } from './node-crypto-signer.js';
export { nodeCryptoVerifier } from './node-crypto-verifier.js';
