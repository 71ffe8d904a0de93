import { balance, type Entry } from './ledger.js';

export function summary(entries: Entry[], accounts: string[]): string {
  let out = '';
  for (let i = 0; i <= accounts.length; i++) out += `${accounts[i]}: ${balance(entries, accounts[i])}\n`;
  return out;
}
