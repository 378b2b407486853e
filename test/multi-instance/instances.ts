import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Injector } from '../server/pages-support.js';
import { CliProcess, type configDir, runCli, validConfig, withChanges } from '../server/support.js';
import type { StoreUnderTest } from '../support/store-backends.js';

/**
 * Writes `config` as `name` in `dir` and runs `gatehouse migrate` on it, as a deploy would before
 * any instance starts; fails the test when the migration does. Resolves with the file's path and
 * what the migration printed.
 */
export async function migratedConfigFile(
  dir: ReturnType<typeof configDir>,
  name: string,
  config: unknown,
): Promise<{ file: string; stdout: string }> {
  const file = dir.write(name, config);
  const migration = await runCli(['migrate', '--config', file]);
  expect(migration.code, migration.stderr).toBe(0);
  return { file, stdout: migration.stdout };
}

/** One `gatehouse serve` process, reached at its own loopback port. */
export interface Instance {
  readonly name: string;
  readonly cli: CliProcess;
  /** `http://127.0.0.1:{port}`. */
  readonly origin: string;
  /** A request to this instance; `path` is a path, or a URL under `baseUrl`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Starts one `gatehouse serve --config {configFile} --port 0` per name, side by side. */
export async function startInstances(
  configFile: string,
  baseUrl: string,
  names: readonly string[],
): Promise<Instance[]> {
  const clis = names.map(() => new CliProcess(['serve', '--config', configFile, '--port', '0']));
  const origins = await Promise.all(clis.map((cli) => cli.origin()));
  return names.map((name, index) => {
    const cli = clis[index] as CliProcess;
    const origin = origins[index] as string;
    return {
      name,
      cli,
      origin,
      fetch: (path, init) => fetch(`${origin}${pathOf(path, baseUrl)}`, init),
    };
  });
}

/**
 * validConfig() at `baseUrl` on `backend` with `changes` (withChanges paths), written as
 * `{backend.name}.json` in `dir` and migrated; instances A and B serve it.
 */
export async function startPairOn(
  dir: ReturnType<typeof configDir>,
  backend: StoreUnderTest,
  baseUrl: string,
  changes: Record<string, unknown>,
): Promise<[Instance, Instance]> {
  const { file } = await migratedConfigFile(
    dir,
    `${backend.name}.json`,
    withChanges(validConfig(), { base_url: baseUrl, ...backend.settings(), ...changes }),
  );
  return (await startInstances(file, baseUrl, ['A', 'B'])) as [Instance, Instance];
}

/**
 * Two standalone servers built in this process on `store`, its schema migrated: validConfig()'s
 * demo realm at `baseUrl`, with `realmFields` and the client `client` beside its own.
 */
export async function inProcessPairOn(
  store: StoreUnderTest,
  baseUrl: string,
  realmFields: Record<string, unknown>,
  client: Record<string, unknown>,
): Promise<[Server, Server]> {
  const base = validConfig();
  const realm = (base.realms as Record<string, unknown>[])[0] ?? {};
  const config = parseServerConfig({
    ...base,
    base_url: baseUrl,
    realms: [{ ...realm, ...realmFields, clients: [...(realm.clients as object[]), client] }],
    ...store.settings(),
  });
  await store.migrate();
  const options = { schemaReady: true, eventLog: () => {} };
  return [buildServer(config, options), buildServer(config, options)];
}

/** Stops an instance as an orchestrator does; resolves with its exit status. */
export async function stopInstance(instance: Instance): Promise<number | null> {
  instance.cli.child.kill('SIGTERM');
  return instance.cli.exited;
}

/**
 * What test/server/pages-support.ts's InjectBrowser drives, over real HTTP: each request goes to
 * the instance `route` picks, as a load balancer would send it. `served` records which instance
 * answered each request, in order.
 */
export function balancedInjector(route: () => Instance) {
  const served: Instance[] = [];
  const injector: Injector = {
    async inject({ method, url, headers = {}, payload }) {
      const instance = route();
      served.push(instance);
      const response = await instance.fetch(url, {
        method,
        headers,
        redirect: 'manual',
        ...(payload !== undefined && { body: payload }),
      });
      const received: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        received[name] = value;
      });
      received['set-cookie'] = response.headers.getSetCookie();
      // InjectBrowser reads the status, the headers and the body, nothing else of the response.
      return {
        statusCode: response.status,
        headers: received,
        body: await response.text(),
      } as unknown as LightMyRequestResponse;
    },
  };
  return { injector, served };
}

/** Round robin over `instances`, starting with the first. */
export function roundRobin(instances: readonly Instance[]): () => Instance {
  let next = 0;
  return () => instances[next++ % instances.length] as Instance;
}

function pathOf(path: string, baseUrl: string): string {
  if (path.startsWith('/')) return path;
  if (!path.startsWith(`${baseUrl}/`)) throw new Error(`not under ${baseUrl}: ${path}`);
  return path.slice(baseUrl.length);
}

/** A JSON answer of an instance: its status and body (`{}` when empty). */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export async function answer(response: Promise<Response>): Promise<Answer> {
  const received = await response;
  const text = await received.text();
  return { status: received.status, body: text === '' ? {} : JSON.parse(text) };
}
