/** `lev blueprint push` and `lev blueprint list`: the store of pushed blueprints (docs/reference/cluster-runs.md#blueprints-by-reference). */
import type { Command } from 'commander';

interface PushFlags {
  name?: string;
  json?: boolean;
}

export function registerBlueprint(program: Command): void {
  const blueprint = program
    .command('blueprint')
    .description('Store validated blueprints under a name and version, so runs can name them (name@version).');
  blueprint
    .command('push')
    .description('Validate a blueprint and store it as the next version of its name (its [agent] name unless --name).')
    .argument('<dir>', 'blueprint directory (holding agent.toml or agent.leviath) or .toml file')
    .option('--name <name>', 'the name to store it under (default: its [agent] name)')
    .option('--json', 'print {name, version, ref, hash, created, pushedAt, source}')
    .action(async (dir: string, flags: PushFlags) => {
      const { pushBlueprint } = await import('../blueprint-action.js');
      await pushBlueprint(dir, flags);
    });
  blueprint
    .command('list')
    .description("List the pushed blueprints with their latest version, or one name's versions.")
    .argument('[name]', 'list the versions of this name')
    .option('--json', 'print the versions as a JSON array')
    .action(async (name: string | undefined, flags: { json?: boolean }) => {
      const { listBlueprints } = await import('../blueprint-action.js');
      await listBlueprints(name, flags);
    });
}
