import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import { exitWithParent } from './child-lifetime.js';
import type { ChildMessage, ParentMessage } from './ipc.js';
import { isServerName } from './server-names.js';
import { SERVERS } from './servers/index.js';
import type { RunningServer } from './servers/running-server.js';
import { ServiceUnavailableError } from './servers/stores.js';

/**
 * Child-process entry: starts the server named in argv, reports its endpoint to the parent over
 * IPC (or that a service it needs does not answer), answers CPU-usage and counter queries, mints
 * credentials when asked (one batch at a time, in order), profiles its main thread between two
 * messages, and closes the server (and removes what it stored) when told to stop, or when the
 * parent goes away without telling it (its IPC channel closes) or signals it.
 */
const name = process.argv[2] ?? '';
if (!isServerName(name) || !process.send) {
  console.error(`usage: forked with IPC and one of ${[...SERVERS.keys()].join(', ')}`);
  process.exit(2);
}
const reply = (message: ChildMessage) => process.send?.(message);
let minting = Promise.resolve();
let started: RunningServer | undefined;
let closing: Promise<void> | undefined;
/** Closes the server once, after the minting under way; nothing to close before it started. */
const close = () => {
  closing ??= minting.then(() => started?.close());
  return closing;
};
exitWithParent(close);
const server = await startOrReport(SERVERS.get(name));
started = server;
const {
  baseUrl,
  tokenPath,
  jwksPath,
  backchannelPath,
  parPath,
  issuerTokenUrl,
  fixedAnswers,
  storePrefix,
} = server;
reply({
  type: 'ready',
  endpoint: {
    baseUrl,
    tokenPath,
    ...(jwksPath ? { jwksPath } : {}),
    ...(backchannelPath ? { backchannelPath } : {}),
    ...(parPath ? { parPath } : {}),
    ...(issuerTokenUrl ? { issuerTokenUrl } : {}),
    ...(fixedAnswers ? { fixedAnswers } : {}),
  },
  ...(storePrefix ? { storePrefix } : {}),
});

let profiler: Session | undefined;
process.on('message', async (message: ParentMessage) => {
  if (message.type === 'cpu-usage') {
    const { user, system } = process.cpuUsage();
    reply({ type: 'cpu-usage', micros: user + system });
  } else if (message.type === 'counters') {
    reply({ type: 'counters', counters: (await server.counters?.()) ?? {} });
  } else if (message.type === 'mint') {
    minting = minting.then(async () => {
      try {
        if (!server.mint) throw new Error(`${name} mints no credentials`);
        reply({ type: 'mint', credentials: await server.mint(message.kind, message.count) });
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
    await close();
    process.disconnect();
  }
});

/**
 * Starts the server; when a service it needs does not answer, tells the parent why and exits
 * once the message is out, never resolving.
 */
async function startOrReport(start?: () => Promise<RunningServer>): Promise<RunningServer> {
  if (!start) throw new Error(`no server ${name}`);
  try {
    return await start();
  } catch (error) {
    if (!(error instanceof ServiceUnavailableError)) throw error;
    process.send?.({ type: 'unavailable', reason: error.message } satisfies ChildMessage, () =>
      process.exit(0),
    );
    return new Promise<never>(() => {});
  }
}
