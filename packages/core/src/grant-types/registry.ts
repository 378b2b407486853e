import {
  CIBA_GRANT_TYPE,
  DEVICE_CODE_GRANT_TYPE,
  JWT_BEARER_GRANT_TYPE,
  TOKEN_EXCHANGE_GRANT_TYPE,
} from '../config/client.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { cibaGrant } from './ciba.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { deviceCodeGrant } from './device-code.js';
import type { GrantTypeHandler } from './grant-type.js';
import { jwtBearerGrant } from './jwt-bearer.js';
import { refreshTokenGrant } from './refresh-token.js';
import { tokenExchangeGrant } from './token-exchange.js';

/** Token-endpoint grants by `grant_type`. Later grants register here. */
export const GRANT_TYPE_REGISTRY: ReadonlyMap<string, GrantTypeHandler> = new Map([
  ['authorization_code', authorizationCodeGrant],
  ['client_credentials', clientCredentialsGrant],
  ['refresh_token', refreshTokenGrant],
  [CIBA_GRANT_TYPE, cibaGrant],
  [TOKEN_EXCHANGE_GRANT_TYPE, tokenExchangeGrant],
  [JWT_BEARER_GRANT_TYPE, jwtBearerGrant],
  [DEVICE_CODE_GRANT_TYPE, deviceCodeGrant],
]);
