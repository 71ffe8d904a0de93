/**
 * A workflow's current details (docs/reference/operators.md#current-details),
 * written once per workflow activation however often something a person can
 * see changed in it: a fan-out's visit hears of every worker's start and end
 * (300 changes at N = 100), and rendering the details each time was a
 * measurable share of the worker's workflow thread (bench/fanout.ts
 * `--profile`). The write waits for the microtasks of the activation in
 * progress, which the SDK runs before it completes the activation, so the
 * Web UI still reads the state the activation ended with. It issues no
 * command and adds no history event.
 */
import { setCurrentDetails } from '@temporalio/workflow';

/** A function to call on every change; it renders and writes the details once, after the change's microtask. */
export function currentDetails(render: () => string): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    void Promise.resolve().then(() => {
      pending = false;
      setCurrentDetails(render());
    });
  };
}
