// The `clusterspec` command line (bin/clusterspec.mjs): dispatches to the subcommands of commands/index.ts
// and maps what they throw to exit statuses (2 usage, 3 internal).
import { commands } from './commands/index.ts';
import { defaultIO, EXIT, UsageError, type CliIO } from './command.ts';

export { defaultIO };

export const USAGE = `Usage: clusterspec COMMAND [ARGS...]

Commands:
${commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

"clusterspec COMMAND --help" describes a command.
`;

export async function main(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout)(USAGE);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr(`error: unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`error: ${e.message}\n\n${command.usage}`);
      return EXIT.usage;
    }
    io.stderr(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return EXIT.internal;
  }
}
