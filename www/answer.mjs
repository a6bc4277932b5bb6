// A provider's answer dropped after a session: recorded after its log as the package records
// it (`providerAnswer`), and what the inspector says of it. Nothing here draws.

/**
 * Records `body` (an answer file, JSON or a stream) from `provider` after `log`. Returns the
 * log with the answer's records appended and what was recorded (`{status, stopReason,
 * records, toolCalls, error}`); throws the package's error when the answer cannot be read.
 */
export function recordAnswerInLog(cv, log, provider, body) {
  const session = cv.Session.fromLog(log);
  try {
    const processed = session.dispatch({ type: 'providerAnswer', provider, body }, new Date().toISOString());
    if (processed.error) throw Object.assign(new Error(processed.error.message), { code: processed.error.code });
    const lines = processed.effects.flatMap((e) => (e.type === 'persist' ? e.lines : [])).filter((l) => JSON.parse(l).seq !== undefined);
    const { answer } = processed.reply;
    return {
      log: log.replace(/\n*$/, '\n') + lines.map((l) => l + '\n').join(''),
      recorded: { status: answer.status, stopReason: answer.stopReason ?? null, records: lines.length, toolCalls: answer.toolCalls.map((c) => c.name), error: answer.error?.kind ?? null },
    };
  } finally {
    session.free();
  }
}

/** One line on what was recorded. */
export function describeAnswer(recorded) {
  return `answer: ${recorded.status}${recorded.stopReason ? `, stop ${recorded.stopReason}` : ''}, ${recorded.records} records` +
    `${recorded.toolCalls.length ? `, asks for ${recorded.toolCalls.join(', ')}` : ''}${recorded.error ? `, provider error ${recorded.error}` : ''}`;
}
