/** The media type (lower case) and charset parameter of a Content-Type header (RFC 9110 §8.3). */
export function parseContentType(header: string | undefined): { type?: string; charset?: string } {
  if (header === undefined) return {};
  const [type, ...parameters] = header.split(';');
  const charset = parameters
    .map((parameter) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  return {
    type: type?.trim().toLowerCase(),
    ...(charset ? { charset: charset.toLowerCase() } : {}),
  };
}

/** Whether a Content-Type header announces an `application/x-www-form-urlencoded` body. */
export function isFormUrlEncoded(header: string | undefined): boolean {
  return parseContentType(header).type === 'application/x-www-form-urlencoded';
}

/** Whether a Content-Type header announces a JSON body (RFC 7591 §3.1 registration requests). */
export function isJson(header: string | undefined): boolean {
  return parseContentType(header).type === 'application/json';
}
