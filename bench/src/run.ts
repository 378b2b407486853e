import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { launchServer } from './launch.js';
import { applyLoad, type RequestBodies } from './load.js';
import { type Measurement, ratioLines, resultTable, SERVER_LABELS } from './report.js';
import { SCENARIOS } from './scenarios.js';
import type { ServerName } from './server-names.js';
import { readSettings } from './settings.js';
import {
  checkSpent,
  checkTokenEndpoint,
  type GrantType,
  isUserGrant,
  TOKEN_REQUEST_BODY,
  tokenRequestBody,
} from './token-request.js';

/**
 * `pnpm bench`: for each scenario (a token request of one grant), each server in its own child
 * process, load from this one. Every server is checked to answer a real token first, warmed up,
 * then measured with the same connections and duration. The user grants spend a one-time
 * credential per request: the server child mints a pool of them before the warm-up and another
 * before the measured run, outside the measured window.
 */
const settings = readSettings(process.env);
console.log(`gatehouse bench ${new Date().toISOString()}`);
console.log(
  `node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), ` +
    `${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.duration} s measured per server; ` +
    `one-time credentials minted for ${settings.poolRate} req/s`,
);

const invalid: string[] = [];
for (const scenario of settings.scenarios) {
  const servers = settings.servers.filter((name) => SCENARIOS.get(scenario)?.includes(name));
  if (servers.length === 0) continue;
  console.log(`\n== ${scenario}`);
  const results = new Map<ServerName, Measurement>();
  for (const name of servers) {
    const measured = await measure(scenario, name);
    results.set(name, measured);
    console.log(`measured ${SERVER_LABELS[name]}: ${Math.round(measured.requestsPerSecond)} req/s`);
    if (measured.failures > 0) invalid.push(`${name} (${scenario})`);
  }
  console.log(`\n${resultTable(results)}\n`);
  for (const line of ratioLines(scenario, results)) console.log(line);
}

if (settings.cpuProfileDir)
  console.log(`\nCPU profiles written to ${settings.cpuProfileDir}/<scenario>/<server>.cpuprofile`);
if (invalid.length > 0) {
  console.error(`\ninvalid run: ${invalid.join(', ')} answered errors under load`);
  process.exitCode = 1;
}

async function measure(scenario: GrantType, name: ServerName): Promise<Measurement> {
  const server = await launchServer(name);
  try {
    /** The bodies of a run of `seconds`: the fixed one, or one per credential of a fresh pool. */
    const bodiesFor = async (seconds: number): Promise<RequestBodies> => {
      if (!isUserGrant(scenario)) return TOKEN_REQUEST_BODY;
      const count = seconds * settings.poolRate + settings.connections;
      const started = performance.now();
      const credentials = await server.mint(scenario, count);
      const elapsed = (performance.now() - started) / 1000;
      console.log(`${name}: minted ${count} ${scenario} credentials in ${elapsed.toFixed(1)} s`);
      return credentials.map((credential) => Buffer.from(tokenRequestBody(scenario, credential)));
    };

    if (isUserGrant(scenario)) {
      const [credential = ''] = await server.mint(scenario, 1);
      await checkTokenEndpoint(server, scenario, credential);
      await checkSpent(server, scenario, credential);
    } else {
      await checkTokenEndpoint(server);
    }
    const load = { connections: settings.connections };
    const warmupBodies = await bodiesFor(settings.warmup);
    await applyLoad(server, { ...load, duration: settings.warmup }, warmupBodies);
    const bodies = await bodiesFor(settings.duration);

    const { cpuProfileDir } = settings;
    if (cpuProfileDir) await server.startProfile();
    const serverCpuBefore = await server.cpuMicros();
    const loadCpuBefore = process.cpuUsage();
    const result = await applyLoad(server, { ...load, duration: settings.duration }, bodies);
    const loadCpu = process.cpuUsage(loadCpuBefore);
    const serverCpuMicros = (await server.cpuMicros()) - serverCpuBefore;
    if (cpuProfileDir)
      await server.stopProfile(join(cpuProfileDir, scenario, `${name}.cpuprofile`));
    const requests = Math.max(1, result.ok + result.failures);
    return {
      ...result,
      serverCpuMicrosPerRequest: serverCpuMicros / requests,
      loadCpuMicrosPerRequest: (loadCpu.user + loadCpu.system) / requests,
    };
  } finally {
    await server.stop();
  }
}
