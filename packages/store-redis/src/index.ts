export { keyPrefixProblem, type RedisStoreOptions } from './options.js';
export { RedisStore } from './redis-store.js';
export { parseRedisUrl, type RedisTopology } from './topology.js';
