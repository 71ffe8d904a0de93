/**
 * How an answer names an option of an interaction point
 * (docs/reference/interaction.md#what-each-answer-does): the same text, else
 * the same once dashes and whitespace are dropped and case is folded. Pure:
 * the blueprint checks and the workflow's routing of answers share it.
 */

/** The words a `confirm` point answers with, which its option lists key on. */
export const CONFIRM_OPTIONS = ['Yes', 'No'] as const;

/** A label with its dashes and whitespace dropped and its case folded, so "Auto approve" and "auto-approve" match. */
export function foldLabel(label: string): string {
  return label.replace(/[-\u2010-\u2015\u2212\s]/g, '').toLowerCase();
}

/** The entry of `labels` that `answer` names: the same text, else the same once folded. */
export function matchLabel(labels: readonly string[], answer: string): string | undefined {
  if (labels.includes(answer)) return answer;
  const folded = foldLabel(answer);
  return labels.find((l) => foldLabel(l) === folded);
}
