/**
 * The script providers a blueprint's models name (docs/reference/script-providers.md):
 * a model `groq:llama-3.3-70b` whose provider is no built-in one is the script
 * `providers/groq.rhai` of the config folder (or the file `[model_providers.groq]
 * script` names). Each is read, compiled and checked for `initialize(config)` and
 * `inference(state, request)` when the blueprint loads, and carried by it, so a
 * worker that calls the provider never reads that folder. Its `// @max_context_tokens`
 * and `// @max_output_tokens` lines give its models' window when the model table has none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../errors.js';
import { parseModelRef } from '../providers/builtin-models.js';
import { metaInteger, REQUIRED_FUNCTIONS, readProviderMeta } from '../providers/script-contract.js';
import { compile } from '../rhai/index.js';
import type { Blueprint, ProviderScriptDef } from '../shapes/frozen-blueprint.js';
import { PROVIDER_PREFIXES, providerFacts } from '../shapes/providers.js';
import { severityOf } from './codes.js';
import type { Findings, KeyPath } from './findings.js';
import type { UserConfig } from './user-config.js';

/** Every model ref the blueprint may call, with the key that names it. */
function namedModels(bp: Blueprint): { ref: string; at: KeyPath }[] {
  const refs: { ref: string; at: KeyPath }[] = [];
  for (const stage of bp.stages)
    for (const ref of stage.models ?? [stage.model]) refs.push({ ref, at: ['stages', stage.name, 'model'] });
  if (bp.agent.model !== undefined) refs.push({ ref: bp.agent.model, at: ['agent', 'model'] });
  if (bp.compaction.model !== undefined) refs.push({ ref: bp.compaction.model, at: ['compaction', 'model'] });
  return refs;
}

/** Reads, checks and returns the scripts of the providers `bp` names that are not built in; reports the rest. */
export function readProviderScripts(
  bp: Blueprint,
  findings: Findings,
  userConfig: UserConfig,
  dir: string,
): ProviderScriptDef[] {
  const defs: ProviderScriptDef[] = [];
  const seen = new Set<string>();
  for (const { ref, at } of namedModels(bp)) {
    if (!ref.includes(':')) continue;
    const name = parseModelRef(ref).provider;
    if (providerFacts(name) || seen.has(name)) continue;
    seen.add(name);
    const file = join(dir, `${userConfig.modelProviders[name]?.script ?? name}.rhai`);
    const def = readOne(name, file, ref, at, findings);
    if (def) defs.push(def);
  }
  for (const def of defs) windowsOf(bp, def);
  return defs;
}

/** What is wrong with a provider script, as a finding of its own file, or its def when nothing is. */
export type ScriptCheck =
  | { ok: true; def: ProviderScriptDef }
  | {
      ok: false;
      code: 'provider-script-syntax' | 'provider-script-contract';
      message: string;
      line: number;
      column: number;
    };

/** Compiles the script `source` of provider `name` and checks it defines both required functions. */
export function checkProviderScript(name: string, file: string, source: string): ScriptCheck {
  const compiled = compile(source, file);
  if (!compiled.ok) {
    const { message, line, column } = compiled.error;
    return {
      ok: false,
      code: 'provider-script-syntax',
      message: `The provider script of "${name}" does not compile: ${message}; fix the script (docs/rhai.md lists the Rhai this interpreter runs).`,
      line,
      column,
    };
  }
  const lacking = REQUIRED_FUNCTIONS.filter((f) => !compiled.script.hasFunction(f.name, f.arity));
  if (lacking.length > 0)
    return {
      ok: false,
      code: 'provider-script-contract',
      message: `The provider script of "${name}" defines no ${lacking.map((f) => `\`fn ${f.shape}\``).join(' and no ')}; a provider script defines both (docs/reference/script-providers.md#the-script-contract).`,
      line: 0,
      column: 0,
    };
  return { ok: true, def: { name, path: file, source, meta: readProviderMeta(source) } };
}

function readOne(
  name: string,
  file: string,
  ref: string,
  at: KeyPath,
  findings: Findings,
): ProviderScriptDef | undefined {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no' : 'cannot read the';
    findings.add(
      'provider-script-missing',
      `"${ref}" names the provider "${name}", which is no built-in provider, and ${why} script ${file}; write it (docs/reference/script-providers.md) or use one of ${PROVIDER_PREFIXES.join(', ')}.`,
      at,
    );
    return undefined;
  }
  const checked = checkProviderScript(name, file, source);
  if (checked.ok) return checked.def;
  const d: Diagnostic = { code: checked.code, severity: severityOf(checked.code), message: checked.message, file };
  if (checked.line > 0) Object.assign(d, { line: checked.line, column: checked.column });
  findings.addAll([d]);
  return undefined;
}

/** A window from the script's metadata for each of its models the model table does not know. */
function windowsOf(bp: Blueprint, def: ProviderScriptDef): void {
  const contextWindow = metaInteger(def.meta, 'max_context_tokens');
  if (contextWindow === undefined) return;
  const maxOutputTokens = Math.min(metaInteger(def.meta, 'max_output_tokens') ?? 4096, contextWindow);
  for (const { ref } of namedModels(bp))
    if (parseModelRef(ref).provider === def.name && !bp.models[ref])
      bp.models[ref] = { contextWindow, maxOutputTokens };
}
