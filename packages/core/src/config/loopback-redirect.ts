/**
 * RFC 8252 §7.3: `http://` to a loopback host, an optional port, then the rest (path and query)
 * from the first `/` or `?`. Anything between the host and the rest (`@`, `\`, an empty or
 * signed port) fails to match, so userinfo and host tricks never count as loopback.
 */
const LOOPBACK_REDIRECT =
  /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::([1-9]\d{0,4}))?([/?].*)?$/;
const MAX_PORT = 65_535;

/**
 * A loopback redirect URI (RFC 8252 §7.3) without its port — `http://127.0.0.1`, `http://[::1]`
 * or `http://localhost`, then the path and query — or undefined for any other URI. A native
 * client must register this part exactly; the port it picks when it makes the request.
 */
export function portlessLoopback(uri: string): string | undefined {
  const match = LOOPBACK_REDIRECT.exec(uri);
  if (!match) return undefined;
  const [, host = '', port, rest = ''] = match;
  if (port !== undefined && Number(port) > MAX_PORT) return undefined;
  // What the browser will navigate to must be that host, with no userinfo, as the text says.
  if (!URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  if (url.hostname !== host || url.username !== '' || url.password !== '') return undefined;
  return `http://${host}${rest}`;
}

/** Whether `uri` is a loopback redirect URI whose port a native client may choose. */
export const isLoopbackRedirectUri = (uri: string): boolean => portlessLoopback(uri) !== undefined;
