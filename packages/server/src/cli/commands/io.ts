import { ConfigError, formatIssue } from '@gatehouse-oidc/core';
import { ConfigFileError, loadConfig, type ServerConfig } from '../../config/server-config.js';

/** Where a command writes: one line at a time to standard output or standard error. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** Exit status for a bad command line or an invalid config: nothing was started. */
export const EXIT_USAGE = 2;

/** The validated config, or undefined after every problem with it was written to `io.err`. */
export async function loadOrReport(file: string, io: Io): Promise<ServerConfig | undefined> {
  try {
    return await loadConfig(file);
  } catch (error) {
    if (error instanceof ConfigFileError) io.err(error.message);
    else if (error instanceof ConfigError) {
      io.err(`${file}: invalid configuration`);
      for (const issue of error.issues) io.err(formatIssue(issue));
    } else throw error;
    return undefined;
  }
}
