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
 * The provider refused the request, failed while answering, or the answer did not arrive whole —
 * thrown after what arrived was recorded. `code` says which: `provider_error` (an HTTP error or
 * an error event), `context_length_exceeded` (the session has made room: build again, or
 * compact when `recovery` is `compact`), `request_too_large` (the next build strips the
 * images), `connection_dropped` (the body's stream broke), `answer_incomplete` (the body ended
 * before the provider finished). `retryable` and `retryAfterMs` say whether and when to send
 * again; `processed` is the recorded `endAnswer`.
 */
export class ProviderError extends ContextviewError {
  constructor(processed, { cause } = {}) {
    const answer = processed?.reply?.answer ?? {};
    const error = answer.error;
    const code = codeOf(answer);
    const what = error ? `${error.kind}${error.status ? ` (${error.status})` : ''}: ${error.message}` : DESCRIBED[code];
    super(code, `${PREFIX[code]}${what}`, { cause });
    this.name = 'ProviderError';
    /** The HTTP status, when the provider answered with one that is not 2xx (or an error named one). */
    this.status = error?.status;
    /** The provider's error type (`overloaded_error`, `RESOURCE_EXHAUSTED`, …), or the status's name. */
    this.kind = error?.kind ?? code;
    /** OpenAI's error code beside its type (`rate_limit_exceeded`, `context_length_exceeded`, …). */
    this.providerCode = error?.code;
    /** The provider's id of the request. */
    this.requestId = answer.requestId;
    /** The response's headers (lower-case names), when it had any. */
    this.headers = {};
    /** Sending the same request again may succeed. */
    this.retryable = answer.retry?.retryable ?? false;
    /** Wait this long before sending again (the server's ask, or the backoff for the attempt). */
    this.retryAfterMs = answer.retry?.afterMs ?? 0;
    /** Why, in a word (`rate_limited`, `overloaded`, `connection_dropped`, `quota_exceeded`, …). */
    this.reason = answer.retry?.reason;
    /** What the session changed so the next request differs: `strip_images`, `prune`, `compact`. */
    this.recovery = answer.recovery;
    /** A context-length refusal's numbers: `{tokens, limit}` where the provider said them. */
    this.context = answer.context;
    /** `{kind, message, status?, code?}` as the provider sent them (absent for a stream that broke). */
    this.providerError = error;
    /** The processed `endAnswer`: what was recorded, and the answer as it stood. */
    this.processed = processed;
  }
}

const PREFIX = {
  provider_error: 'the provider answered with an error: ',
  context_length_exceeded: 'the request is longer than the model takes: ',
  request_too_large: 'the request is too large: ',
  connection_dropped: 'the connection dropped before the answer was whole: ',
  answer_incomplete: 'the answer ended before the provider finished it: ',
};

const DESCRIBED = {
  connection_dropped: 'what arrived is recorded, marked partial',
  answer_incomplete: 'what arrived is recorded, marked partial',
};

function codeOf(answer) {
  if (answer.status === 'partial') return answer.retry?.reason === 'connection_dropped' ? 'connection_dropped' : 'answer_incomplete';
  if (answer.context) return 'context_length_exceeded';
  if (answer.recovery === 'strip_images') return 'request_too_large';
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
