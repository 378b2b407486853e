import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { launchServer } from './launch.js';
import { applyLoad } from './load.js';
import { type Measurement, resultTable, SERVER_LABELS, targetLines } from './report.js';
import type { ServerName } from './server-names.js';
import { readSettings } from './settings.js';
import { checkTokenEndpoint } from './token-request.js';

/**
 * `pnpm bench`: each server in its own child process, load from this one. Every server is checked
 * to answer a real token first, warmed up, then measured with the same connections and duration.
 */
const settings = readSettings(process.env);
console.log(`gatehouse bench ${new Date().toISOString()}`);
console.log(
  `node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), ` +
    `${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.duration} s measured per server`,
);

const results = new Map<ServerName, Measurement>();
for (const name of settings.servers) {
  const profileFlags = settings.cpuProfileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${join(settings.cpuProfileDir, name)}`]
    : [];
  const server = await launchServer(name, { nodeFlags: profileFlags });
  try {
    await checkTokenEndpoint(server);
    await applyLoad(server, { connections: settings.connections, duration: settings.warmup });
    const serverCpuBefore = await server.cpuMicros();
    const loadCpuBefore = process.cpuUsage();
    const load = await applyLoad(server, {
      connections: settings.connections,
      duration: settings.duration,
    });
    const loadCpu = process.cpuUsage(loadCpuBefore);
    const serverCpuMicros = (await server.cpuMicros()) - serverCpuBefore;
    const requests = Math.max(1, load.ok + load.failures);
    results.set(name, {
      ...load,
      serverCpuMicrosPerRequest: serverCpuMicros / requests,
      loadCpuMicrosPerRequest: (loadCpu.user + loadCpu.system) / requests,
    });
    console.log(`measured ${SERVER_LABELS[name]}: ${Math.round(load.requestsPerSecond)} req/s`);
  } finally {
    await server.stop();
  }
}

console.log(`\n${resultTable(results)}\n`);
for (const line of targetLines(results)) console.log(line);
if (settings.cpuProfileDir)
  console.log(`\nCPU profiles written under ${settings.cpuProfileDir}/<server>/`);

const failed = [...results].filter(([, measurement]) => measurement.failures > 0);
if (failed.length > 0) {
  console.error(
    `\ninvalid run: ${failed.map(([name]) => name).join(', ')} answered errors under load`,
  );
  process.exitCode = 1;
}
