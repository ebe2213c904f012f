/**
 * A source's input refused its flags (`--report` not a known report...): the CLI shows it as a
 * usage error (exit code 2, with the usage text).
 */
export class SourceUsageError extends Error {
  override readonly name = 'SourceUsageError';
}

/** A fatal, user-facing problem with the input (missing file, missing API key): exit code 1. */
export class SourceOpenError extends Error {
  override readonly name = 'SourceOpenError';
}
