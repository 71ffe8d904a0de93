/**
 * The original Leviath's environment tools (docs/tools.md#environment):
 * `system_info` (the machine), `locale_info` (the user's language and region)
 * and `runtime_info` (the run reporting on itself, above all whether anyone
 * is there to answer a question). Read-only; each answers as indented JSON.
 */
import { readFile, statfs } from 'node:fs/promises';
import { availableParallelism, hostname } from 'node:os';
import { z } from 'zod';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import { LEVIATH_VERSION } from '../version.js';
import { defineTool, type RunFacts, success, type ToolContext } from './tool.js';

/** What a run tells `runtime_info` about itself; set by the tool activity and by seeding. */
/** The facts of a run at `stage` of `bp`, calling `model`, given `tools`. */
export function runFactsFor(
  bp: Blueprint,
  stage: string,
  opts: { model: string; tools: readonly string[]; workdir: string; unattended?: boolean; runId?: string },
): RunFacts {
  const index = bp.stages.findIndex((s) => s.name === stage);
  const maxIterations = bp.stages[index]?.maxIterations;
  return {
    leviathVersion: LEVIATH_VERSION,
    ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
    agent: bp.agent.name,
    stage,
    stageIndex: index,
    stageCount: bp.stages.length,
    ...(maxIterations !== undefined ? { maxIterations } : {}),
    model: opts.model,
    tools: opts.tools,
    ...(opts.unattended !== undefined ? { unattended: opts.unattended } : {}),
    workdir: opts.workdir,
  };
}

const OS_NAMES: Readonly<Record<string, string>> = {
  linux: 'Linux',
  darwin: 'macOS',
  win32: 'Windows',
  freebsd: 'FreeBSD',
  openbsd: 'OpenBSD',
};

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** `VERSION_ID` (else `VERSION`) of /etc/os-release; null where the platform publishes none. */
export function osVersionFrom(osRelease: string | undefined): string | null {
  if (osRelease === undefined) return null;
  const fields = new Map<string, string>();
  for (const line of osRelease.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m?.[1] && m[2] !== undefined) fields.set(m[1], m[2].replace(/^"(.*)"$/, '$1'));
  }
  return fields.get('VERSION_ID') ?? fields.get('VERSION') ?? null;
}

async function diskOf(dir: string): Promise<{ available_bytes: number | null; total_bytes: number | null }> {
  try {
    const s = await statfs(dir);
    return { available_bytes: s.bavail * s.bsize, total_bytes: s.blocks * s.bsize };
  } catch {
    return { available_bytes: null, total_bytes: null };
  }
}

export const systemInfoTool = defineTool({
  name: 'system_info',
  description:
    'The machine this run works on: operating system and version, architecture, CPU count, hostname, path separator, line ending, and free disk space in the working directory.',
  schema: z.object({}).strict(),
  async run(_args, ctx) {
    const family = process.platform === 'win32' ? 'windows' : 'unix';
    const release =
      process.platform === 'linux' ? await readFile('/etc/os-release', 'utf8').catch(() => undefined) : undefined;
    return success(
      pretty({
        os: process.platform,
        os_name: OS_NAMES[process.platform] ?? process.platform,
        os_version: osVersionFrom(release),
        os_family: family,
        arch: process.arch,
        cpu_count: availableParallelism(),
        hostname: hostname() || null,
        path_separator: family === 'windows' ? ';' : ':',
        line_ending: family === 'windows' ? 'crlf' : 'lf',
        executable_suffix: family === 'windows' ? '.exe' : '',
        disk: await diskOf(ctx.workdir),
      }),
    );
  },
});

/**
 * A platform locale tag as `{ locale, language, region }`: `en_US.UTF-8`
 * becomes `en-US`. `C` and `POSIX` mean no locale is set, not a language
 * called "C", so they give nulls; the raw tag is kept either way.
 */
export function describeLocale(tag: string | undefined): Record<string, string | null> {
  const raw = tag ?? null;
  const head = (tag ?? '').trim().split(/[.@]/)[0]?.trim() ?? '';
  const none = { locale: null, language: null, region: null, raw };
  if (head === '' || /^(c|posix)$/i.test(head)) return none;
  const [language, region] = head.split(/[_-]/).filter((p) => p !== '');
  if (!language) return none;
  const lang = language.toLowerCase();
  const reg = region?.toUpperCase() ?? null;
  return { locale: reg ? `${lang}-${reg}` : lang, language: lang, region: reg, raw };
}

/** The tag a Unix program reads its messages' language from: LC_ALL, else LC_MESSAGES, else LANG. */
export function localeTag(env: NodeJS.ProcessEnv): string | undefined {
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const v = env[name];
    if (v !== undefined && v.trim() !== '') return v;
  }
  return undefined;
}

export const localeInfoTool = defineTool({
  name: 'locale_info',
  description: "The user's language and region as a BCP-47 tag (such as en-US), and the machine's time zone.",
  schema: z.object({}).strict(),
  async run(_args, ctx) {
    const env = ctx.env ?? process.env;
    const timezone = env.TZ?.trim() || Intl.DateTimeFormat().resolvedOptions().timeZone || null;
    return success(pretty({ ...describeLocale(localeTag(env)), timezone }));
  },
});

const ASKING_TOOLS = 'ask_user (ask_user_text), ask_user_choice, ask_user_confirm, present_for_review or edit_document';

/** What `runtime_info` answers for these facts. */
export function describeRuntime(run: RunFacts | undefined, ctx: Pick<ToolContext, 'workdir'>): Record<string, unknown> {
  if (!run) return { working_directory: ctx.workdir, unattended: null, interaction: 'This run did not say.' };
  const [provider, ...rest] = run.model.split(':');
  const interaction =
    run.unattended === undefined
      ? 'Whether a person answers questions is not known while the context is seeded; call runtime_info during the run to find out.'
      : run.unattended
        ? `This run is unattended: nobody will answer ${ASKING_TOOLS}. Decide for yourself and record the assumption in your output.`
        : `A person is available to answer ${ASKING_TOOLS}.`;
  return {
    leviath_version: run.leviathVersion,
    run_id: run.runId ?? null,
    agent: run.agent,
    working_directory: run.workdir,
    stage: {
      name: run.stage,
      index: run.stageIndex,
      of: run.stageCount,
      max_iterations: run.maxIterations ?? null,
    },
    provider,
    model: rest.join(':'),
    available_tools: run.tools,
    unattended: run.unattended ?? null,
    interaction,
  };
}

export const runtimeInfoTool = defineTool({
  name: 'runtime_info',
  description:
    'This run reporting on itself: agent, stage and its iteration limit, model and provider, the tools it was given, and whether anyone is available to answer a question. Call it before asking the user anything.',
  schema: z.object({}).strict(),
  async run(_args, ctx) {
    return success(pretty(describeRuntime(ctx.run, ctx)));
  },
});
