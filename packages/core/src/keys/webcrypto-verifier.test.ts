import { describeSignerContract } from '../testing/signer-contract.js';
import { describeVerifierContract } from '../testing/verifier-contract.js';
import { webCryptoSigner } from './webcrypto-signer.js';
import { webCryptoVerifier } from './webcrypto-verifier.js';

describeSignerContract('webCryptoSigner', webCryptoSigner);
describeVerifierContract('webCryptoVerifier', webCryptoVerifier);
