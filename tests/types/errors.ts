// The error story in types: every error the package throws narrows with `instanceof` to a class
// whose `code` is a typed union — a host never casts. And a turn sent with `send` is typed end to
// end. Compiled with `tsc -p tests/types` (strict); the `@ts-expect-error` lines must fail.
import {
  ContextviewError,
  ContextviewTypeError,
  ProviderError,
  StorageError,
  Session,
  openSession,
  send,
  type ContextviewErrorCode,
  type ProviderErrorCode,
  type Recovery,
  type TurnResult,
  type SessionStorage,
} from 'contextview';

function handle(e: unknown): string {
  if (e instanceof ProviderError) {
    const code: ProviderErrorCode = e.code;
    // A wait only with a retry.
    const wait: number | undefined = e.retryAfterMs;
    const retry: boolean = e.retryable;
    const status: number | undefined = e.status;
    const recovery: Recovery | undefined = e.recovery;
    const headers: Record<string, string> = e.headers;
    // @ts-expect-error — a provider error's code is one of its own
    const wrong: ProviderErrorCode = 'invalid_options';
    return `${code} ${wait} ${retry} ${status} ${recovery} ${headers['retry-after']} ${e.processed.reply.answer.text} ${wrong}`;
  }
  if (e instanceof StorageError) {
    const code: 'seq_gap' | 'seq_conflict' | 'invalid_line' | 'missing_header' | 'header_conflict' | 'write_failed' | 'read_failed' | 'timeout' = e.code;
    // What a session's call did in memory, and the records storage has not confirmed.
    const command: string | undefined = e.processed?.command;
    const unstored: number[] = e.unstored;
    return `${code} ${command} ${unstored.length}`;
  }
  if (e instanceof ContextviewTypeError) {
    const code: 'invalid_argument' = e.code;
    return `${code} ${e.argument}`;
  }
  if (e instanceof ContextviewError) {
    const code: ContextviewErrorCode = e.code;
    // @ts-expect-error — not a code the package raises
    const bogus: ContextviewErrorCode = 'oops';
    return `${code} ${bogus}`;
  }
  return 'not ours';
}

async function turn(storage: SessionStorage): Promise<TurnResult> {
  const session = await openSession(storage, { sessionId: 's' });
  const plain = Session.create('p');
  const fetcher = (body: Uint8Array<ArrayBuffer>, init: { signal?: AbortSignal; attempt: number }) =>
    fetch('https://api.anthropic.com/v1/messages', { method: 'POST', body, signal: init.signal });
  const durable = session.send(fetcher, { build: { tools: [] }, maxRetries: 3, onRetry: (e, r) => console.log(e.code, r.delayMs) });
  for await (const update of durable) console.log(update.sessionUpdate);
  const result = await durable.done();
  const calls: { id: string; name: string }[] = result.toolCalls;
  console.log(calls, result.answers.map((a) => a.ending), result.attempts);
  // @ts-expect-error — the fetcher is a function
  send(plain, 'https://api.anthropic.com', {});
  return send(plain, fetcher).done();
}

export { handle, turn };
