/** The floor's one activity: the same HTTP call to the burst's fake model, returning only whether it was the last turn. */

/** Asks the fake model (`FLOOR_MODEL_URL`) for turn `turn` of agent `agent`; true when it answered without a tool call. */
export async function floorInfer(agent: number, turn: number): Promise<boolean> {
  // The fake model reads the agent and the turn from the prompt's text, as it does Leviath's.
  const notes = turn > 0 ? ` Notes from turn ${turn - 1}:` : '';
  const res = await fetch(`${process.env.FLOOR_MODEL_URL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `Burst agent ${agent}.${notes}` }] }),
  });
  if (!res.ok) throw new Error(`fake model answered ${res.status}`);
  const reply = (await res.json()) as { choices: { finish_reason: string }[] };
  return reply.choices[0]?.finish_reason === 'stop';
}
