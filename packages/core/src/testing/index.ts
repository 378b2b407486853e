/**
 * `@gatehouse-oidc/core/testing`: what a third party needs to test its own parts against
 * Gatehouse's contracts with vitest (an optional peer dependency, needed only by this entry).
 */
export { type FakeClock, fakeClock } from './clock.js';
export { describeSignerContract } from './signer-contract.js';
export {
  type ContractTime,
  describeStoreContract,
  fakeTime,
  realTime,
} from './store-contract.js';
export { describeVerifierContract } from './verifier-contract.js';
