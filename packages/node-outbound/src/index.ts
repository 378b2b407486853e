export { type NodeOutboundOptions, nodeOutbound } from './node-outbound.js';
export type { ResolveAll } from './public-lookup.js';
