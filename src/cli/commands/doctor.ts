/** `lev doctor`: the options; the checks live in `../doctor-action.ts`. */
import type { Command } from 'commander';
import { DEFAULT_ADDRESS } from '../../runtime/defaults.js';
import type { DoctorFlags } from '../doctor-action.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the setup end to end: the config parses, a provider key works (one real inference), and a run goes through the server and a worker.',
    )
    .option('-m, --model <provider:model>', 'check this model (default: the first provider whose key is set)')
    .option('--no-server', 'stop after the inference: start no server or worker and no run')
    .option('--address <host:port>', 'Temporal frontend address', process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS)
    .option('--json', 'print {"checks": [...], "passed": bool}')
    .action(async (flags: DoctorFlags) => {
      const { doctorCommand } = await import('../doctor-action.js');
      await doctorCommand(flags);
    });
}
