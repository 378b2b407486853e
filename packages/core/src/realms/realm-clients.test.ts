import { describe, expect, it, vi } from 'vitest';
import type { ClientConfig } from '../config/client.js';
import type { Client } from './realm.js';
import { RealmClients } from './realm-clients.js';

const configs = ['web', 'service', 'api'].map((client_id) => ({ client_id }) as ClientConfig);

function clients() {
  const build = vi.fn((config: ClientConfig) => ({ id: config.client_id, config }) as Client);
  return { build, clients: new RealmClients(configs, build) };
}

describe('RealmClients', () => {
  it('builds a client at its first lookup only, and answers the same one after', () => {
    const { build, clients: realmClients } = clients();
    expect(build).not.toHaveBeenCalled();
    const service = realmClients.get('service');
    expect(service?.id).toBe('service');
    expect(realmClients.get('service')).toBe(service);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('knows its clients and their number without building any', () => {
    const { build, clients: realmClients } = clients();
    expect([realmClients.has('api'), realmClients.has('nobody'), realmClients.size]).toEqual([
      true,
      false,
      3,
    ]);
    expect([...realmClients.keys()]).toEqual(['web', 'service', 'api']);
    expect(realmClients.get('nobody')).toBeUndefined();
    expect(build).not.toHaveBeenCalled();
  });

  it('iterates every client in the order of the configuration, each built once', () => {
    const { build, clients: realmClients } = clients();
    const api = realmClients.get('api');
    expect([...realmClients].map(([id, client]) => [id, client.id])).toEqual([
      ['web', 'web'],
      ['service', 'service'],
      ['api', 'api'],
    ]);
    expect([...realmClients.values()][2]).toBe(api);
    const seen: string[] = [];
    realmClients.forEach((client, id, map) => {
      expect(map).toBe(realmClients);
      seen.push(`${id}=${client.id}`);
    });
    expect(seen).toEqual(['web=web', 'service=service', 'api=api']);
    expect(build).toHaveBeenCalledTimes(3);
  });
});
