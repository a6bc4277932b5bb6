// One exchange, run alike in workerd (worker.mjs) and in Node (miniflare.test.mjs) with each
// runtime's entry of the package: a fresh session asked one question, the provider's answer taken
// through receive() from `source`, and what was recorded.
/** One question, the answer the request body streams in, and what was recorded. */
export async function receiveAnswer(cvModule, source, provider, model) {
  const now = '2026-12-03T10:00:00Z';
  const session = cvModule.Session.create('relay');
  const lines = [];
  const take = (p) => lines.push(...p.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])));
  take(session.dispatch({ type: 'switchModel', provider, model, contextWindow: 200000 }, now));
  take(session.dispatch({ type: 'userMessage', text: 'Why does the parser test fail?' }, now));
  const stream = cvModule.receive(session, source, { now });
  const updates = [];
  let error = null;
  try {
    for await (const update of stream) updates.push(update);
  } catch (e) {
    error = { code: e.code, kind: e.providerError?.kind };
  }
  const processed = await stream.done().catch((e) => e.processed);
  take(processed);
  return { updates, lines, answer: processed.reply.answer, error };
}

