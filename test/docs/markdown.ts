/** A fenced block of a Markdown page: its info string's language, its text, where it starts. */
export interface FencedBlock {
  lang: string;
  body: string;
  offset: number;
}

/** Every ``` block of `markdown`, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  return [...markdown.matchAll(/^```(\S*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm)].map((match) => ({
    lang: match[1] ?? '',
    body: match[2] ?? '',
    offset: match.index,
  }));
}

/** Blocks a reader saves and runs with Node.js, as opposed to shell, JSON or output. */
export const isScript = (block: FencedBlock) =>
  /^(ts|js|mts|mjs|typescript|javascript)$/.test(block.lang);

/** The npm packages a script imports (`@scope/name` or `name`, subpaths dropped), sorted. */
export function importedPackages(script: string): string[] {
  const specifiers = [...script.matchAll(/\b(?:from|import)\s*\(?\s*'([^']+)'/g)].map(
    (match) => match[1] ?? '',
  );
  const packages = specifiers
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
    .map((specifier) => specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/'));
  return [...new Set(packages)].sort();
}

/** The packages the `npm install` lines of a shell block name (flags and comments aside). */
export function installedPackages(shell: string): string[] {
  const commands = shell
    .split('\n')
    .flatMap((line) => (line.split(' #', 1)[0] ?? '').split(/&&|;/));
  return commands.flatMap((command) => {
    const args = /^\s*npm (?:install|i) (.*)$/.exec(command)?.[1];
    if (args === undefined) return [];
    return args
      .split(/\s+/)
      .filter((arg) => arg !== '' && !arg.startsWith('-'))
      .map((arg) => arg.replace(/(?<=.)@[^/]*$/, ''));
  });
}

/** A `curl` command of a shell block: its URL and its `-d name=value` fields. */
export interface CurlCommand {
  url: string;
  form: Record<string, string>;
}

/** The curl commands of a shell block, continuation lines joined. */
export function curlCommands(shell: string): CurlCommand[] {
  return shell
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => /^\s*curl\s/.test(line))
    .map((line) => {
      const args = line.trim().split(/\s+/).slice(1);
      const form: Record<string, string> = {};
      args.forEach((arg, index) => {
        if (arg !== '-d') return;
        const [name = '', ...value] = (args[index + 1] ?? '').split('=');
        form[name] = value.join('=');
      });
      const url = args.findLast((arg) => /^https?:\/\//.test(arg));
      if (!url) throw new Error(`a curl command without a URL: ${line}`);
      return { url, form };
    });
}
