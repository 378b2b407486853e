import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import type { ChildMessage, ParentMessage } from './ipc.js';
import { isServerName } from './server-names.js';
import { SERVERS } from './servers/index.js';

/**
 * Child-process entry: starts the server named in argv, reports its endpoint to the parent over
 * IPC, answers CPU-usage queries, mints one-time credentials when asked (one batch at a time, in
 * order), profiles its main thread between two messages, and closes the server when told to stop.
 */
const name = process.argv[2] ?? '';
if (!isServerName(name) || !process.send) {
  console.error(`usage: forked with IPC and one of ${[...SERVERS.keys()].join(', ')}`);
  process.exit(2);
}
const start = SERVERS.get(name);
const server = await start?.();
if (!server) throw new Error(`no server ${name}`);
const { baseUrl, tokenPath, jwksPath } = server;
const reply = (message: ChildMessage) => process.send?.(message);
reply({ type: 'ready', endpoint: { baseUrl, tokenPath, ...(jwksPath ? { jwksPath } : {}) } });

let minting = Promise.resolve();
let profiler: Session | undefined;
process.on('message', async (message: ParentMessage) => {
  if (message.type === 'cpu-usage') {
    const { user, system } = process.cpuUsage();
    reply({ type: 'cpu-usage', micros: user + system });
  } else if (message.type === 'mint') {
    minting = minting.then(async () => {
      try {
        if (!server.mint) throw new Error(`${name} answers client_credentials only`);
        reply({ type: 'mint', credentials: await server.mint(message.grant, message.count) });
      } catch (error) {
        reply({ type: 'mint', error: error instanceof Error ? error.message : String(error) });
      }
    });
  } else if (message.type === 'profile' && message.action === 'start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    reply({ type: 'profile' });
  } else if (message.type === 'profile') {
    const { profile } = (await profiler?.post('Profiler.stop')) ?? {};
    profiler?.disconnect();
    await mkdir(dirname(message.file), { recursive: true });
    await writeFile(message.file, JSON.stringify(profile));
    reply({ type: 'profile' });
  } else if (message.type === 'stop') {
    await minting;
    await server.close();
    process.disconnect();
  }
});
