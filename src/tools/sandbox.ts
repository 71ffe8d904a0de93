/**
 * Where commands run (`shell`, command seeds, `shell` tool seeds). With
 * `kind = "namespace"` (the default) every command runs under bubblewrap in
 * new user, PID, IPC, UTS, cgroup and network namespaces with every
 * capability dropped: the workdir is the only writable path, granted
 * `[read_paths]` directories and the system directories are read-only,
 * `/tmp` and `$HOME` are private and empty, and `/proc` is the sandbox's
 * own, so the worker's environment, API keys and files are out of reach.
 * Whatever the kind, the command's environment holds only an allow-list of
 * variables.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { RuntimeCode } from '../errors.js';

export type SandboxKind = 'namespace' | 'none';

export interface SandboxPolicy {
  kind: SandboxKind;
  /** Variables passed through besides {@link BASE_ENV}: `[sandbox] env` of the blueprint and the user's config. */
  env: readonly string[];
  /** Directories the command may read (granted `[read_paths]` entries), mounted read-only. */
  readRoots: readonly string[];
  /**
   * The command shares the worker's network: only when the user's config allows it
   * (`[sandbox] network = true`) and the blueprint asks for it (docs/reference/blueprint.md#sandbox).
   */
  network?: boolean;
}

/** What every command sees of the worker's environment, whatever the blueprint says. */
export const BASE_ENV: readonly string[] = ['PATH', 'HOME', 'LANG', 'TERM'];

export const DEFAULT_SANDBOX: SandboxPolicy = Object.freeze({ kind: 'namespace', env: [], readRoots: [] });

export function commandEnv(names: readonly string[], env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...BASE_ENV, ...names]) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The namespaces and privileges every sandboxed command runs with (also what the probe tries). */
const ISOLATION = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-net',
  '--unshare-cgroup-try',
  // Run by root, bwrap would otherwise keep every capability inside the sandbox.
  '--cap-drop',
  'ALL',
  '--die-with-parent',
  // A new session, so the command cannot push input into the worker's terminal (TIOCSTI).
  '--new-session',
];

/** On merged-/usr systems these are symbolic links into /usr; elsewhere real directories. */
const SYSTEM_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The parts of /etc programs need to start, resolve names and find
 * certificates; the rest (shadow, ssh keys, the container's secrets) stays out.
 */
const ETC_ENTRIES = [
  'alternatives',
  'bash.bashrc',
  'ca-certificates',
  'debian_version',
  'gitconfig',
  'group',
  'host.conf',
  'hostname',
  'hosts',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'profile',
  'protocols',
  'resolv.conf',
  'services',
  'ssl',
  'timezone',
];

function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of SYSTEM_LINKS) {
    try {
      const info = lstatSync(dir);
      if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
      else if (info.isDirectory()) args.push('--ro-bind', dir, dir);
    } catch {
      // Not on this system.
    }
  }
  for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  // Where software is installed outside /usr on some systems.
  for (const dir of ['/opt', '/nix']) args.push('--ro-bind-try', dir, dir);
  return args;
}

const SYSTEM_DIRS = ['/', '/usr', '/etc', '/proc', '/dev', '/tmp', ...SYSTEM_LINKS];

/** The bwrap argument list that runs `bash -c command` in `workdir`. */
export function bwrapArgs(command: string, workdir: string, policy: SandboxPolicy, home: string | undefined): string[] {
  const isolation = policy.network ? ISOLATION.filter((a) => a !== '--unshare-net') : ISOLATION;
  const args = [...isolation, ...systemMounts(), '--tmpfs', '/tmp', '--dev', '/dev', '--proc', '/proc'];
  // An empty private home: tools that write caches there work, and the worker's dotfiles stay out.
  if (home && path.isAbsolute(home) && !SYSTEM_DIRS.includes(path.resolve(home))) args.push('--tmpfs', home);
  for (const root of policy.readRoots) args.push('--ro-bind-try', root, root);
  // Last, so the workdir stays writable even when a read root contains it.
  args.push('--bind', workdir, workdir, '--chdir', workdir, 'bash', '-c', command);
  return args;
}

export type SandboxProbe = { ok: true } | { ok: false; reason: string };

/** By the PATH bwrap is looked up on: in practice one probe per process. */
const probes = new Map<string, SandboxProbe>();

/** Whether bubblewrap (found on `PATH`) can create the sandbox's namespaces here. */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): SandboxProbe {
  const searchPath = env.PATH ?? '';
  const known = probes.get(searchPath);
  if (known) return known;
  const run = spawnSync('bwrap', [...ISOLATION, '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'], {
    env: { PATH: searchPath },
    encoding: 'utf8',
    timeout: 10_000,
  });
  let probed: SandboxProbe;
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    probed = { ok: false, reason: missing ? 'bwrap is not installed' : `bwrap could not start (${run.error.message})` };
  } else if (run.status !== 0) {
    const said = run.stderr.trim().split('\n').at(-1) ?? '';
    probed = { ok: false, reason: `bwrap cannot create namespaces here (${said || `exit ${run.status}`})` };
  } else probed = { ok: true };
  probes.set(searchPath, probed);
  return probed;
}

export const SANDBOX_UNAVAILABLE = 'sandbox-unavailable';

export function sandboxUnavailableMessage(reason: string): string {
  return `Commands run in a bubblewrap sandbox, but ${reason}; install it (\`apt-get install bubblewrap\`) and allow unprivileged user namespaces (\`sysctl kernel.unprivileged_userns_clone=1\`, or on Ubuntu \`sysctl kernel.apparmor_restrict_unprivileged_userns=0\`), or set \`[sandbox] kind = "none"\` in your config to run commands without a sandbox.`;
}

export const SANDBOX_OFF_WARNING =
  'warning: `[sandbox] kind = "none"` in your config: shell commands and command seeds run without a sandbox and can read and write anything this user can (their environment is still reduced to PATH, HOME, LANG, TERM and `[sandbox] env`).';

export interface Spawnable {
  file: string;
  args: string[];
  env: Record<string, string>;
}

export type Prepared = { ok: true; run: Spawnable } | { ok: false; code: RuntimeCode; message: string };

/** How to spawn `bash -c command` under the policy, or why it cannot run. */
export function prepareCommand(
  command: string,
  workdir: string,
  policy: SandboxPolicy,
  env: NodeJS.ProcessEnv = process.env,
): Prepared {
  const clean = commandEnv(policy.env, env);
  if (policy.kind === 'none') return { ok: true, run: { file: 'bash', args: ['-c', command], env: clean } };
  const probe = probeSandbox(env);
  if (!probe.ok) return { ok: false, code: SANDBOX_UNAVAILABLE, message: sandboxUnavailableMessage(probe.reason) };
  // bwrap gets the clean environment too: its own process is PID 1 of the sandbox, readable in /proc/1/environ.
  return { ok: true, run: { file: 'bwrap', args: bwrapArgs(command, workdir, policy, clean.HOME), env: clean } };
}
