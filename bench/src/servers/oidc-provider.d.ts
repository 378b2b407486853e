// oidc-provider ships no type declarations; this covers the little the benchmark uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** A saved model's value: the token (or grant id) a client sees. */
  interface Saveable {
    save(): Promise<string>;
  }
  interface ClientModel {
    readonly clientId: string;
  }
  type Model<Fields> = new (fields: Fields) => Saveable;

  /** The OAuth errors its hooks throw to answer 400 with that error code. */
  export const errors: { InvalidRequest: new (description: string) => Error };

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    readonly Client: { find(id: string): Promise<ClientModel | undefined> };
    readonly Grant: new (fields: {
      accountId: string;
      clientId: string;
    }) => Saveable & {
      addOIDCScope(scope: string): void;
      addResourceScope(resource: string, scope: string): void;
    };
    readonly AuthorizationCode: Model<Record<string, unknown> & { client: ClientModel }>;
    readonly RefreshToken: Model<Record<string, unknown> & { client: ClientModel }>;
  }
}

// The package's own in-memory adapter, used with an unbounded storage (see oidc-provider.ts).
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  export interface AdapterStorage {
    get(key: string): unknown;
    set(key: string, value: unknown, options?: { maxAge?: number }): unknown;
    delete(key: string): boolean;
  }
  export default class MemoryAdapter {
    constructor(model: string, storage: AdapterStorage);
  }
}
