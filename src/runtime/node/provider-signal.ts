/**
 * The abort signal of a provider call (docs/reference/long-runs.md#never-billed-twice):
 * the activity's cancellation, except when the server gave up on this
 * attempt while the run goes on. A call whose attempt timed out, or that the
 * server no longer knows while the workflow run is still open, is already
 * paid for: it runs on, and its answer waits for the next attempt. A run
 * that was cancelled or ended has no next attempt, so its call is aborted:
 * a heartbeat that comes after the run closed finds its attempt gone too,
 * which must not keep the call (and the worker's shutdown) waiting for it.
 */

/** What the signal reads of the activity's context. */
export interface AttemptCancellation {
  readonly cancellationSignal: AbortSignal;
  readonly cancellationDetails?: { readonly timedOut: boolean; readonly notFound: boolean } | undefined;
}

/**
 * `runOpen` asks the server whether the attempt's workflow run is still
 * open; it answers true when it cannot tell, since aborting a call the run
 * still waits for would pay for it twice.
 */
export function providerSignal(context: AttemptCancellation, runOpen: () => Promise<boolean>): AbortSignal {
  const cancelled = context.cancellationSignal;
  const ours = new AbortController();
  const follow = async () => {
    const why = context.cancellationDetails;
    if (why?.timedOut) return;
    if (why?.notFound && (await runOpen())) return;
    ours.abort(cancelled.reason);
  };
  if (cancelled.aborted) void follow();
  else cancelled.addEventListener('abort', () => void follow(), { once: true });
  return ours.signal;
}
