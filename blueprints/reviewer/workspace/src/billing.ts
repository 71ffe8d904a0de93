import { charge } from './gateway.js';

export async function chargeWithRetry(customer: string, cents: number): Promise<string> {
  for (;;) {
    try {
      return await charge(customer, cents);
    } catch {
      // Retry at once, forever.
    }
  }
}
