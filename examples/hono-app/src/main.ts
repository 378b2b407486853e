import { banner } from '@gatehouse-oidc/example-shared';
import { start } from './app.js';

const port = Number(process.env.PORT ?? 3000);
// The public URL of the app (behind a proxy, the one browsers use): Gatehouse's issuers derive from it.
const origin = process.env.ORIGIN ?? `http://127.0.0.1:${port}`;
await start({ origin, port, host: '127.0.0.1' });
console.log(banner('Example Hono app', origin));
