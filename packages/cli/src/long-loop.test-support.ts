/** A long tool loop: 60 reads of distinct pages, each result a few hundred tokens. */
export function longLoop(rounds = 60): unknown {
  const page = (i: number) =>
    Array.from({ length: 40 }, (_, l) => `page ${i} line ${l}: /srv/app/mod_${i}_${l}.py ok`).join('\n');
  return {
    messages: [
      { role: 'system', content: 'You audit modules.' },
      { role: 'user', content: 'Audit every module.' },
      ...Array.from({ length: rounds }, (_, i) => [
        {
          role: 'assistant',
          content: i > 0 ? `mod_${i - 1}_3.py checked.` : null,
          tool_calls: [
            { id: `c${i}`, type: 'function', function: { name: 'read', arguments: `{"page":${i}}` } },
          ],
        },
        { role: 'tool', tool_call_id: `c${i}`, content: page(i) },
      ]).flat(),
      { role: 'assistant', content: 'All modules are fine.' },
    ],
  };
}
