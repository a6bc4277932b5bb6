import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// What the CLI's commands share: its usage error (exit code 2), reading the files a command
// names (one, or a directory's), the formats an import takes.

export const FORMATS = ['claude-code', 'codex', 'pi', 'gemini-cli', 'copilot-cli', 'aider', 'cline', 'roo-code', 'kilo-code', 'opencode'];

/** Bad arguments, an unknown command or provider, a file that cannot be read: exit code 2. */
export class UsageError extends Error {}

export function firstLine(s) {
  return String(s).split('\n')[0];
}

/** A file's text; a usage error naming it (as `what`) when it cannot be read. */
export function readText(path, what) {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${what} file ${path}: ${e.code ?? firstLine(e.message)}`);
  }
}

/** The files of a directory with one of `extensions`, as text (none when it does not exist and was not asked for). */
export function jsonlFiles(dir, asked, extensions = ['.jsonl']) {
  if (!asked && !existsSync(dir)) return [];
  let names;
  try {
    names = readdirSync(dir).filter((n) => extensions.some((e) => n.endsWith(e))).sort();
  } catch (e) {
    throw new UsageError(`cannot read directory ${dir}: ${e.code ?? firstLine(e.message)}`);
  }
  return names.map((n) => ({ path: join(dir, n), text: readText(join(dir, n), 'log') }));
}
