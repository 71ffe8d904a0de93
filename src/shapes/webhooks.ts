/** What a run's webhooks are configured with and told (docs/reference/cluster-runs.md#notifications). */

export const NOTIFY_EVENTS = ['completed', 'failed', 'cancelled', 'waiting'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** One `[[notify.webhooks]]` of the user config. */
export interface Webhook {
  url: string;
  /** The variable, on the worker that delivers, holding the HMAC secret; unset: deliveries are unsigned. */
  secretEnv?: string;
  /** The events it is sent; all of them unless the config lists some. */
  events: NotifyEvent[];
  /** `[notify] patience` of the table it was listed in: how long a delivery keeps trying, in seconds. */
  patienceSecs?: number;
}

export interface Notice {
  /** The same on every attempt of one delivery, so a receiver can drop repeats. */
  deliveryId: string;
  event: NotifyEvent;
  runId: string;
  blueprint: string;
  /** The run's status: completed, failed, cancelled, or running while it waits. */
  status: string;
  /** Estimated dollars so far; null when a model has no price. */
  costUsd: number | null;
  /** The `lev` command that answers: the result, or the reply a person owes. */
  command: string;
  /** What the run failed with, for `failed`. */
  error?: string;
  /**
   * What a person is asked, or what the run waits for, for `waiting`: `checkpoint` is an
   * interaction point (docs/reference/interaction.md); `options` are the labels a choice picks
   * from; `tool-worker-missing` asks for a tool worker to be started; `provider` names the
   * provider that is down.
   */
  waiting?: {
    kind: 'approval' | 'answer' | 'checkpoint' | 'reply' | 'tool-worker-missing' | 'provider';
    call?: string;
    subject: string;
    options?: string[];
  };
  /** The run's workdir, for a `tool-worker-missing` wait: `command` starts its tool worker. */
  workdir?: string;
  /** When the event happened (workflow time), ISO 8601. */
  at: string;
}
