import { start } from './app.js';
import { AGENT_CLIENT_ID } from './realm.js';

const port = Number(process.env.PORT ?? 3000);
// The public URL of the app (behind a proxy, the one clients use): the MCP server is {origin}/mcp.
const origin = process.env.ORIGIN ?? `http://127.0.0.1:${port}`;
// Set to the issuer of a Gatehouse running elsewhere (the standalone server); unset, it runs here.
const issuer = process.env.ISSUER || undefined;
const app = await start({ origin, port, host: '127.0.0.1', issuer });
console.log(`MCP server on ${origin}/mcp
Authorization server: ${app.issuer}
Client: ${AGENT_CLIENT_ID} (public), redirect_uri http://127.0.0.1:<any port>/callback
Users: alice / alice-demo-password, bob / bob-demo-password`);
