export interface Entry {
  account: string;
  cents: number;
}

export function balance(entries: Entry[], account: string): number {
  return entries.filter((e) => e.account === account).reduce((sum, e) => sum + e.cents, 0);
}
