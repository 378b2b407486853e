/** The benchmarked servers. Kept apart from their code so the load process never loads them. */
export const SERVER_NAMES = ['ours', 'ceiling', 'oidc-provider'] as const;
export type ServerName = (typeof SERVER_NAMES)[number];

export const isServerName = (value: string): value is ServerName =>
  (SERVER_NAMES as readonly string[]).includes(value);
