import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from './args.js';

describe('command line', () => {
  it.each([
    [['check', '--config', 'a.json'], { name: 'check', config: 'a.json' }],
    [['check', '--config=a.json'], { name: 'check', config: 'a.json' }],
    [['migrate', '--config', 'a.json'], { name: 'migrate', config: 'a.json' }],
    [['serve', '--config', 'a.json'], { name: 'serve', config: 'a.json' }],
    [
      ['serve', '--config', 'a.json', '--port', '0', '--host', '::1'],
      { name: 'serve', config: 'a.json', port: 0, host: '::1' },
    ],
    [['help'], { name: 'help' }],
    [['--help'], { name: 'help' }],
  ])('parses %j', (argv, command) => {
    expect(parseCommandLine(argv)).toEqual(command);
  });

  it.each([
    [[], 'missing command'],
    [['start', '--config', 'a.json'], 'unknown command "start"'],
    [['serve'], '--config is required'],
    [['serve', '--config'], "Option '--config <value>' argument missing"],
    [['serve', '--config', 'a.json', '--verbose'], "Unknown option '--verbose'"],
    [['check', '--config', 'a.json', '--port', '80'], "Unknown option '--port'"],
    [['check', '--config', 'a.json', 'extra'], "Unexpected argument 'extra'"],
    [['migrate'], '--config is required'],
    [['migrate', '--config', 'a.json', '--host', 'db'], "Unknown option '--host'"],
    [
      ['serve', '--config', 'a.json', '--port', '65536'],
      '--port must be a number from 0 to 65535, got "65536"',
    ],
    [
      ['serve', '--config', 'a.json', '--port', 'http'],
      '--port must be a number from 0 to 65535, got "http"',
    ],
    [['serve', '--config', 'a.json', '--host', ''], '--host must not be empty'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
