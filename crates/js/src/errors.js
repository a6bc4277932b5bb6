// Every error the package throws, in one module: the wasm facade makes its errors here (through
// `makeError` and `makeTypeError`), and each entry point exports these classes, so a host can
// write `e instanceof ContextviewError` and switch on a typed `e.code`. (scripts/build.sh gives
// every copy of this module in the package the same instance.)

/**
 * An error of the package, with a stable `code` (`invalid_options`, `ends_with_assistant`, …;
 * the README's Errors table lists them) and, where there is more to say, `details`. A
 * wrong-typed argument is a `ContextviewTypeError`, which is a `TypeError` and counts as a
 * `ContextviewError` too; a provider's refusal is a `ProviderError`, a storage's a `StorageError`.
 */
export class ContextviewError extends Error {
  constructor(code, message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ContextviewError';
    this.code = code;
    if (options.details !== undefined) this.details = options.details;
  }

  static [Symbol.hasInstance](value) {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    // A wrong-typed argument is a TypeError first, and one of ours too.
    return this === ContextviewError && Function.prototype[Symbol.hasInstance].call(ContextviewTypeError, value);
  }
}

/** An argument of the wrong type: `argument` names it, `code` is `invalid_argument`. */
export class ContextviewTypeError extends TypeError {
  constructor(argument, message) {
    super(message);
    this.name = 'ContextviewTypeError';
    this.code = 'invalid_argument';
    this.argument = argument;
  }
}

/**
 * The provider refused the request, failed while answering, or the answer did not arrive whole
 * or did not end the turn — thrown after what arrived was recorded. `code` says which:
 * `provider_error` (an HTTP error or an error event), `context_length_exceeded` (the session has
 * made room: build again, or compact when `recovery` is `compact`), `prompt_too_long` (the latest
 * prompt alone, with the system prompt and tools, is over the model's window: nothing the session
 * may leave out makes room), `request_too_large` (the next build strips the images),
 * `connection_dropped` (the body's stream broke), `answer_incomplete` (the body ended before the
 * provider finished), `refused` (the model or the provider's filter refused, or the prompt was
 * blocked: the same request would be refused again), `turn_unfinished` (the output limit cut the
 * answer, or the provider paused it, after every continuation `send` was allowed). `retryable`
 * says whether sending again may succeed and `retryAfterMs` how long to wait first (only when it
 * may); `processed` is the recorded `endAnswer`.
 */
export class ProviderError extends ContextviewError {
  constructor(processed, { cause, code: given } = {}) {
    const answer = processed?.reply?.answer ?? {};
    const error = answer.error;
    const code = given ?? codeOf(answer);
    const said = error ? `${error.kind}${error.status ? ` (${error.status})` : ''}: ${error.message}` : null;
    const what = code === 'prompt_too_long' ? `${describe(code, answer)} (${said})` : said && !given ? said : describe(code, answer);
    super(code, `${PREFIX[code]}${what}`, { cause });
    this.name = 'ProviderError';
    /** The HTTP status, when the provider answered with one that is not 2xx (or an error named one). */
    this.status = error?.status;
    /** The provider's error type (`overloaded_error`, `RESOURCE_EXHAUSTED`, …), the block reason, or the code. */
    this.kind = error?.kind ?? (code === 'refused' ? answer.blocked ?? answer.stopReason ?? 'refusal' : code);
    /** OpenAI's error code beside its type (`rate_limit_exceeded`, `context_length_exceeded`, …). */
    this.providerCode = error?.code;
    /** The provider's id of the request. */
    this.requestId = answer.requestId;
    /** The response's headers (lower-case names), when it had any. */
    this.headers = {};
    /** Sending the same request again may succeed. */
    this.retryable = answer.retry?.retryable ?? false;
    /** Wait this long before sending again (the server's ask, or the backoff) — only when `retryable`: the session's `retryAfter` effect. */
    this.retryAfterMs = this.retryable ? processed?.effects?.find((e) => e.type === 'retryAfter')?.afterMs : undefined;
    /** Why, in a word (`rate_limited`, `overloaded`, `connection_dropped`, `quota_exceeded`, `billing`, …). */
    this.reason = answer.retry?.reason;
    /** What the session changed so the next request differs: `strip_images`, `prune`, `compact`. */
    this.recovery = answer.recovery;
    /** A context-length refusal's numbers: `{tokens, limit, window, promptTokens}` where known. */
    this.context = answer.context;
    /** How the answer ended (`failed`, `interrupted`, `refused`, `output_limit`, `paused`, …). */
    this.ending = answer.ending;
    /** `{kind, message, status?, code?}` as the provider sent them (absent for a stream that broke). */
    this.providerError = error;
    /** The processed `endAnswer`: what was recorded, and the answer as it stood. */
    this.processed = processed;
  }
}

const PREFIX = {
  provider_error: 'the provider answered with an error: ',
  context_length_exceeded: 'the request is longer than the model takes: ',
  prompt_too_long: 'the latest prompt does not fit the model\'s window: ',
  request_too_large: 'the request is too large: ',
  connection_dropped: 'the connection dropped before the answer was whole: ',
  answer_incomplete: 'the answer ended before the provider finished it: ',
  refused: 'the provider refused: ',
  turn_unfinished: 'the turn did not finish: ',
};

/** What a ProviderError says when the provider sent no error of its own. */
function describe(code, answer) {
  switch (code) {
    case 'connection_dropped':
    case 'answer_incomplete':
      return 'what arrived is recorded, marked partial';
    case 'refused':
      return answer.blocked
        ? `the prompt was blocked (${answer.blocked}); change it (a new message, a rewind) or the model before sending again`
        : `the model's answer was refused or filtered (stop reason ${answer.stopReason ?? 'refusal'}); change the input or the model before sending again`;
    case 'turn_unfinished':
      return answer.ending === 'paused'
        ? 'the provider paused the turn again after the last continuation'
        : `the output limit cut the answer again after the last continuation (stop reason ${answer.stopReason}); raise maxTokens or maxContinuations`;
    case 'prompt_too_long': {
      const c = answer.context ?? {};
      return `${c.promptTokens} tokens with the system prompt and tools, over the window of ${c.window}; shorten it or switch to a model with a larger window`;
    }
    default:
      return answer.error?.message ?? code;
  }
}

function codeOf(answer) {
  if (answer.status === 'partial') return answer.retry?.reason === 'connection_dropped' ? 'connection_dropped' : 'answer_incomplete';
  if (answer.context?.promptTokens !== undefined) return 'prompt_too_long';
  if (answer.context) return 'context_length_exceeded';
  if (answer.recovery === 'strip_images') return 'request_too_large';
  if (answer.status === 'complete' && answer.ending === 'refused') return 'refused';
  return 'provider_error';
}

/** The facade's factory for its refusals (called from Rust). */
export function makeError(code, message, details) {
  return new ContextviewError(code, message, details === undefined ? {} : { details });
}

/** The facade's factory for a wrong-typed argument (called from Rust). */
export function makeTypeError(argument, message) {
  return new ContextviewTypeError(argument, message);
}
