import type { ChildMessage, ParentMessage } from './ipc.js';
import { isServerName } from './server-names.js';
import { SERVERS } from './servers/index.js';

/**
 * Child-process entry: starts the server named in argv, reports its endpoint to the parent over
 * IPC, answers CPU-usage queries, and closes the server when told to stop (a clean exit, so
 * `--cpu-prof` writes its file).
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
process.on('message', async (message: ParentMessage) => {
  if (message.type === 'cpu-usage') {
    const { user, system } = process.cpuUsage();
    reply({ type: 'cpu-usage', micros: user + system });
  } else if (message.type === 'stop') {
    await server.close();
    process.disconnect();
  }
});
