/**
 * Where every `lev` command and worker connects
 * (docs/reference/operating.md#connection-settings): a flag, else the
 * environment (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`,
 * `TEMPORAL_TLS*`, `TEMPORAL_GRPC_META_*`), else the profile of a
 * `temporal.toml` (`--profile`, `TEMPORAL_PROFILE`, `TEMPORAL_CONFIG_FILE`),
 * as the `temporal` CLI and Temporal's SDKs read them
 * (`@temporalio/envconfig`), else the local defaults. Leviath's own TLS
 * variables (`tls.ts`) win over a profile's TLS.
 */
import type { TLSConfig } from '@temporalio/client';
import { type ClientConfigProfile, loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import { LevError } from '../errors.js';
import { DEFAULT_ADDRESS, DEFAULT_NAMESPACE } from '../runtime/defaults.js';
import { temporalTls } from './tls.js';

export interface ServerChoice {
  address?: string;
  namespace?: string;
  /** The `temporal.toml` profile; `TEMPORAL_PROFILE`, else "default". */
  profile?: string;
}

export interface ServerSettings {
  address: string;
  namespace: string;
  /** A Temporal Cloud API key (`TEMPORAL_API_KEY`, `api_key` of the profile); implies TLS. */
  apiKey?: string;
  tls?: TLSConfig | boolean;
  /** gRPC headers sent on every call (`TEMPORAL_GRPC_META_*`, `[profile.x.grpc_meta]`). */
  metadata?: Record<string, string>;
}

/** The connection part of a command's flags, the profile only when one was named. */
export function serverChoice(flags: ServerChoice): ServerChoice {
  return {
    ...(flags.address ? { address: flags.address } : {}),
    ...(flags.namespace ? { namespace: flags.namespace } : {}),
    ...(flags.profile ? { profile: flags.profile } : {}),
  };
}

function profileOf(choice: ServerChoice, env: NodeJS.ProcessEnv): ClientConfigProfile {
  const vars = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  try {
    return loadClientConfigProfile({ ...(choice.profile ? { profile: choice.profile } : {}), overrideEnvVars: vars });
  } catch (err) {
    throw new LevError(
      'temporal-profile-bad',
      `The Temporal connection profile cannot be loaded (${(err as Error).message}); fix temporal.toml (TEMPORAL_CONFIG_FILE, else ~/.config/temporalio/temporal.toml) or name a profile it holds with --profile or TEMPORAL_PROFILE.`,
    );
  }
}

/** The settings of one connection: flags over the environment over the profile over the defaults. */
export function serverSettings(choice: ServerChoice = {}, env: NodeJS.ProcessEnv = process.env): ServerSettings {
  const profile = profileOf(choice, env);
  const { connectionOptions } = toClientOptions(profile);
  const tls = temporalTls(env) ?? connectionOptions.tls;
  return {
    address: choice.address ?? profile.address ?? DEFAULT_ADDRESS,
    namespace: choice.namespace ?? profile.namespace ?? DEFAULT_NAMESPACE,
    ...(profile.apiKey ? { apiKey: profile.apiKey } : {}),
    ...(tls ? { tls } : {}),
    ...(profile.grpcMeta && Object.keys(profile.grpcMeta).length > 0 ? { metadata: profile.grpcMeta } : {}),
  };
}

/** What `Connection.connect` and `NativeConnection.connect` take from the settings. */
export function connectOptions(s: ServerSettings): {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
} {
  return {
    address: s.address,
    ...(s.tls ? { tls: s.tls } : {}),
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    ...(s.metadata ? { metadata: s.metadata } : {}),
  };
}

/** A server behind TLS or an API key is never the embedded dev server, which `lev run` may start. */
export function isSecured(s: ServerSettings): boolean {
  return Boolean(s.tls || s.apiKey);
}
