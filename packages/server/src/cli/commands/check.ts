import { EXIT_USAGE, type Io, loadOrReport } from './io.js';

/** `gatehouse check --config <file>`: prints "ok", or every problem and exits 2. */
export async function check(file: string, io: Io): Promise<number> {
  if (!(await loadOrReport(file, io))) return EXIT_USAGE;
  io.out('ok');
  return 0;
}
