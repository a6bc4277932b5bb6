// Our own workspace fixture for the discovery tests: one tree, written to memory (memoryFs), to a
// real temp directory (nodeFs) and to OPFS (browserFs). Every instruction file carries a unique
// MARK-… string so tests can find it in whatever field the engine puts the text.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The fixture under the absolute directory `base`:
 *   home/.claude/CLAUDE.md                       user rule
 *   home/.agents/skills/release-notes/SKILL.md   user skill
 *   repo/.git/HEAD                               repository root marker
 *   repo/.gitignore                              ignores CLAUDE.local.md (which must still load)
 *   repo/AGENTS.md, CLAUDE.md, CLAUDE.local.md
 *   repo/.claude/rules/x.md                      `paths: docs/**` (conditional)
 *   repo/.cursor/rules/y.mdc                     alwaysApply: true
 *   repo/.cursor/rules/z.mdc                     globs: **\/*.ts, unquoted (invalid YAML on purpose)
 *   repo/.claude/skills/lint-fix/SKILL.md        project skill
 *   repo/a/CLAUDE.md
 *   repo/a/b/AGENTS.md, repo/a/b/CLAUDE.md -> AGENTS.md (symlink); cwd = repo/a/b
 */
export function workspaceFixture(base) {
  const root = `${base}/repo`;
  const a = `${root}/a`;
  const b = `${a}/b`;
  const home = `${base}/home`;
  const files = {
    [`${home}/.claude/CLAUDE.md`]: '# Me\nMARK-HOME-CLAUDE: answer in English.\n',
    [`${home}/.agents/skills/release-notes/SKILL.md`]:
      '---\nname: release-notes\ndescription: Draft release notes from the git log.\n---\n# Release notes\nMARK-SKILL-NOTES: group the changes by feature.\n',
    [`${root}/.git/HEAD`]: 'ref: refs/heads/main\n',
    [`${root}/.gitignore`]: 'CLAUDE.local.md\nnode_modules/\n',
    [`${root}/AGENTS.md`]: '# Agents\nMARK-ROOT-AGENTS: run `make test` before you commit.\n',
    [`${root}/CLAUDE.md`]: '# Claude\nMARK-ROOT-CLAUDE: keep commits small.\n',
    [`${root}/CLAUDE.local.md`]: 'MARK-ROOT-LOCAL: my sandbox is at http://localhost:8080.\n',
    [`${root}/.claude/rules/x.md`]: '---\npaths:\n  - "docs/**/*.md"\n---\nMARK-RULE-X: docs use sentence case.\n',
    [`${root}/.cursor/rules/y.mdc`]: '---\ndescription: Always on\nalwaysApply: true\n---\nMARK-RULE-Y: no default exports.\n',
    [`${root}/.cursor/rules/z.mdc`]: '---\ndescription: TypeScript files\nglobs: **/*.ts\nalwaysApply: false\n---\nMARK-RULE-Z: strict TypeScript only.\n',
    [`${root}/.claude/skills/lint-fix/SKILL.md`]:
      '---\nname: lint-fix\ndescription: Fix lint errors in the changed files.\n---\n# Lint fix\nMARK-SKILL-LINT: run the linter with --fix, then again to check.\n',
    [`${root}/docs/guide.md`]: '# Guide\n',
    [`${a}/CLAUDE.md`]: 'MARK-A-CLAUDE: package a is indented with tabs.\n',
    [`${b}/AGENTS.md`]: 'MARK-B-AGENTS: package b is generated; edit the templates instead.\n',
    [`${b}/CLAUDE.md`]: { symlink: 'AGENTS.md' },
    [`${b}/src/main.ts`]: 'export const answer = 42;\n',
  };
  return {
    files,
    paths: { base, root, a, b, home, cwd: b, mainTs: `${b}/src/main.ts`, guide: `${root}/docs/guide.md` },
    /** Markers of the files that apply to cwd unconditionally (each must load exactly once). */
    unconditional: ['MARK-HOME-CLAUDE', 'MARK-ROOT-AGENTS', 'MARK-ROOT-CLAUDE', 'MARK-ROOT-LOCAL', 'MARK-RULE-Y', 'MARK-A-CLAUDE', 'MARK-B-AGENTS'],
    skills: { 'lint-fix': 'MARK-SKILL-LINT', 'release-notes': 'MARK-SKILL-NOTES' },
  };
}

/** Writes a fixture's files to the real filesystem (symlinks as symlinks). */
export function writeTree(files) {
  for (const [path, value] of Object.entries(files)) {
    mkdirSync(dirname(path), { recursive: true });
    if (value && typeof value === 'object' && 'symlink' in value) symlinkSync(value.symlink, path);
    else writeFileSync(path, value);
  }
}

/** The directory level of a rule path: 0 home, 1 repo root, 2 a, 3 b (cwd); -1 elsewhere. */
export function levelOf(paths, path) {
  if (path.startsWith(paths.b + '/')) return 3;
  if (path.startsWith(paths.a + '/')) return 2;
  if (path.startsWith(paths.root + '/')) return 1;
  if (path.startsWith(paths.home + '/')) return 0;
  return -1;
}

/** How many of `items` mention `marker` anywhere (whatever field holds the text). */
export function mentions(items, marker) {
  return items.filter((x) => JSON.stringify(x).includes(marker)).length;
}

/** The path of a Changes element (a path string or an object with .path). */
export const pathOf = (x) => (typeof x === 'string' ? x : x?.path);
/** The name of a Changes element for skills (a name string or an object with .name). */
export const nameOf = (x) => (typeof x === 'string' ? x : x?.name);
