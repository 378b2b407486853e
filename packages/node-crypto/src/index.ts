export { nodeCryptoSigner } from './node-crypto-signer.js';
