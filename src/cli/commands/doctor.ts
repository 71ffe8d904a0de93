/** `lev doctor`: the options; the checks live in `../doctor-action.ts`. */
import type { Command } from 'commander';
import { DEFAULT_ADDRESS } from '../../runtime/defaults.js';
import type { DoctorFlags } from '../doctor-action.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the setup, every check in one table: config, Temporal CLI, server, worker, provider keys, one real inference, codec key, metrics, sandbox, MCP servers.',
    )
    .option('-m, --model <provider:model>', 'check this model (default: the first provider whose key is set)')
    .option('--no-server', 'stop after the inference: start no server or worker and no run')
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--json', 'print {"checks": [{name, ok, skipped?, detail}], "passed": bool}')
    .action(async (flags: DoctorFlags) => {
      const { doctorCommand } = await import('../doctor-action.js');
      await doctorCommand(flags);
    });
}
