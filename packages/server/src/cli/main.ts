#!/usr/bin/env node
import { parseCommandLine, USAGE, UsageError } from './args.js';
import { check } from './commands/check.js';
import { EXIT_USAGE, type Io } from './commands/io.js';
import { migrate } from './commands/migrate.js';
import { serve } from './commands/serve.js';

const io: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

async function main(argv: readonly string[]): Promise<number | undefined> {
  let command: ReturnType<typeof parseCommandLine>;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`gatehouse: ${error.message}`);
    io.err(USAGE);
    return EXIT_USAGE;
  }
  switch (command.name) {
    case 'help':
      io.out(USAGE);
      return 0;
    case 'check':
      return check(command.config, io);
    case 'migrate':
      return migrate(command.config, io);
    case 'serve':
      return serve(command, io);
  }
}

const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
