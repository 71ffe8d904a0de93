/**
 * `lev add <dir>`, `lev list`, `lev remove <name>`: installed agents
 * (docs/reference/installed-agents.md), which `lev run <name>` and
 * `worker_agent = "<name>"` find by name.
 */
import type { Command } from 'commander';
import { addAgent, agentsDir, listInstalled, removeAgent } from '../installed-agents.js';

export function registerAgents(program: Command): void {
  program
    .command('add')
    .description('Install a blueprint directory as an agent that `lev run <name>` and worker_agent find by name.')
    .argument('<dir>', 'blueprint directory (holding agent.toml or agent.leviath); it must validate')
    .option('--name <name>', "install under this name (default: its [agent] name, else the directory's)")
    .option('--force', 'replace an installed agent of the same name')
    .action((dir: string, opts: { name?: string; force?: boolean }) => {
      const added = addAgent(dir, opts);
      const warnings = added.result.diagnostics.filter((d) => d.severity === 'warning').length;
      process.stdout.write(
        `${added.replaced ? 'replaced' : 'installed'} ${added.name} in ${added.dir}${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'}: lev validate ${added.name})` : ''}\n`,
      );
    });
  program
    .command('list')
    .description('List the installed agents.')
    .option('--json', 'print a JSON array of { name, dir, description?, version?, error? }')
    .action((opts: { json?: boolean }) => {
      const agents = listInstalled();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(agents, null, 2)}\n`);
        return;
      }
      if (agents.length === 0) {
        process.stdout.write(`no agents installed in ${agentsDir()}; lev add <dir> installs one\n`);
        return;
      }
      const width = Math.max(...agents.map((a) => a.name.length));
      for (const a of agents) {
        const about = a.error ? `does not validate: ${a.error}` : [a.version, a.description].filter(Boolean).join('  ');
        process.stdout.write(`${a.name.padEnd(width)}  ${about}\n`.replace(/\s+\n$/, '\n'));
      }
    });
  program
    .command('remove')
    .description('Uninstall an agent.')
    .argument('<name>', 'the installed agent, as `lev list` names it')
    .action((name: string) => {
      process.stdout.write(`removed ${name} (${removeAgent(name)})\n`);
    });
}
