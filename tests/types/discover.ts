// The discovery API's hand-written declarations (pkg-template/index.d.ts), compiled by
// `tsc -p tests/types`: usable with precise types, and misuse is a type error.
import {
  browserFs,
  discover,
  memoryFs,
  nodeFs,
  Workspace,
  type Changes,
  type DiscoverFs,
  type DiscoveryOptions,
  type Environment,
  type LoadedSkill,
  type Rule,
  type RuleSource,
  type WorkspaceStats,
} from 'contextview';

async function use(root: FileSystemDirectoryHandle): Promise<void> {
  const options: DiscoveryOptions = {
    cwd: '/repo/a',
    home: '/home/u',
    conventions: { cursor: false },
    outsideRepo: 'ancestors',
    limits: { ruleFileBytes: 40_000 },
    skills: { bundled: [{ name: 'x', description: 'd', body: 'b' }], plugins: [{ name: 'p', root: '/p' }] },
  };
  const mem = memoryFs({ '/repo/.git/HEAD': 'ref: refs/heads/main\n', '/repo/CLAUDE.md': { symlink: 'AGENTS.md' } });
  mem.write('/repo/AGENTS.md', new TextEncoder().encode('# rules'));
  const ws: Workspace = await discover(options, mem);
  const env: Environment = ws.environment;
  const paths: string[] = env.rules.map((r) => r.path);
  const sources: RuleSource[] = env.rules.concat(env.conditional).map((r) => r.source);
  const texts: string[] = env.rules.map((r) => r.text);
  const names: string[] = env.skills.map((s) => s.name);
  const changes: Changes = await ws.refresh(['/repo/AGENTS.md']);
  const attached: Rule[] = await ws.rulesForPath('/repo/a/main.ts');
  const skill: LoadedSkill = await ws.loadSkill('x');
  const stats: WorkspaceStats = ws.stats();
  const calls: number = stats.calls.readDir + stats.calls.readFile;
  ws.free();

  // A host adapter may answer synchronously or with Promises.
  const custom: DiscoverFs = {
    readDir: async () => [{ name: 'a', kind: 'dir' }],
    readFile: (_path, maxBytes) => ({ content: 'x'.repeat(Math.min(3, maxBytes ?? 3)), size: 3 }),
  };
  await discover({ cwd: '/' }, custom);
  await discover({ cwd: '/' }, nodeFs());
  await discover({ cwd: '/ws' }, browserFs(root, { mount: '/ws' }));

  // @ts-expect-error cwd is required
  await discover({ home: '/h' }, mem);
  // @ts-expect-error an unknown outsideRepo mode
  await discover({ cwd: '/', outsideRepo: 'everywhere' }, mem);
  // @ts-expect-error kind is one of file, dir, symlink, other
  const bad: DiscoverFs = { readDir: () => [{ name: 'a', kind: 'directory' }], readFile: () => null };

  void paths, sources, texts, names, changes, attached, skill, calls, bad;
}

void use;
