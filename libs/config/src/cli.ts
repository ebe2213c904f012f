import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad command-line usage: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type CommandOptions = NonNullable<ParseArgsConfig['options']>;
type ParseArgsResult<O extends CommandOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: O }>
>;

/**
 * The part every CLI here shares: node's parseArgs (strict, positionals allowed) with its errors as
 * UsageError, `-h`/`--help`/`help` as the help command, and exactly one positional, the command.
 */
export function parseCommandLine<const O extends CommandOptions>(
  argv: readonly string[],
  options: O,
  missingCommand: string,
): { command: 'help' } | { command: string; values: ParseArgsResult<O>['values'] } {
  let parsed: ParseArgsResult<O>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if ((values as { help?: unknown }).help === true || positionals[0] === 'help') return { command: 'help' };
  const [command, ...extra] = positionals;
  if (command === undefined) throw new UsageError(missingCommand);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  return { command, values };
}

/**
 * A CLI's first step: its command parsed by `parse`, or the exit code when there is nothing to run:
 * 2 after a UsageError (printed to stderr with the usage text), 0 after printing the usage for help.
 */
export function readCommand<T extends { command: string }>(
  parse: (argv: readonly string[]) => T,
  argv: readonly string[],
  usage: string,
  io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } },
): Exclude<T, { command: 'help' }> | number {
  let cmd: T;
  try {
    cmd = parse(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`error: ${err.message}\n\n${usage}\n`);
    return 2;
  }
  if (cmd.command === 'help') {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  return cmd as Exclude<T, { command: 'help' }>;
}
