// contextview as a service: a Worker that authenticates every request, checks its size and
// JSON, and routes /v1/sessions/:id/... to the Durable Object that holds that session.
//
//   PUT  /v1/sessions/:id                 create the session, or open it            -> 201 | 200
//   GET  /v1/sessions/:id                 what the session holds (state, persistence)
//   POST /v1/sessions/:id/commands        one command (Idempotency-Key: optional)  -> its result
//   POST /v1/sessions/:id/build           build options -> {report, body}
//   POST /v1/sessions/:id/responses       ?provider=&model=; body: a provider's answer (JSON or a
//                                         stream, streamed in; X-Provider-Status and
//                                         X-Provider-Headers: the provider's response head) ->
//                                         the recorded answer, or the provider's failure as a
//                                         4xx/5xx saying what happened; updates go to WebSocket
//                                         clients as they decode
//   GET  /v1/sessions/:id/usage           ?provider=&model=&contextWindow=          -> usage_update's figures
//   GET  /v1/sessions/:id/log             the log, streamed as JSON Lines
//   POST /v1/sessions/:id/import          ?format=claude-code|codex|pi; body: the file -> a new session
//   POST /v1/sessions/:id/subagents       {toolCallId, task, …} (Idempotency-Key: optional) -> the
//                                         child session `<id>.<call>` and its token (201; 200 when
//                                         a keyed start is replayed)
//   GET  /v1/sessions/:id/events          WebSocket: usage_update notifications and compactionDue
//
// Every refusal is JSON `{error: {code, message}}` with a 4xx status (README.md lists the codes).
import { AuthError, authenticate, authorize, mintToken } from './auth.mjs';
import { HttpError, errorResponse, json, readJsonObject, readText } from './http.mjs';
import { COMMANDS } from './session-object.mjs';

export { SessionObject } from './session-object.mjs';

const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;
const KEY = /^[\x21-\x7e]{1,200}$/;
const DEFAULT_MAX_COMMAND_BYTES = 1024 * 1024;
const DEFAULT_MAX_IMPORT_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const PROVIDERS = new Set(['anthropic', 'openai-chat', 'openai-responses', 'gemini']);

const ROUTES = {
  '': { PUT: 'open', GET: 'state' },
  commands: { POST: 'command' },
  build: { POST: 'build' },
  usage: { GET: 'usage' },
  log: { GET: 'log' },
  import: { POST: 'import' },
  responses: { POST: 'responses' },
  events: { GET: 'events' },
  subagents: { POST: 'subagent' },
};

function limit(env, name, fallback) {
  const n = Number(env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export default {
  async fetch(request, env) {
    try {
      return await route(request, env);
    } catch (e) {
      if (e instanceof AuthError) return json({ error: { code: e.code, message: e.message } }, e.status, e.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
      return errorResponse(e);
    }
  },
};

async function route(request, env) {
  const url = new URL(request.url);
  const match = /^\/v1\/sessions\/([^/]+)(?:\/([a-z]+))?\/?$/.exec(url.pathname);
  // Authentication comes first: an unauthenticated caller learns nothing, not even which paths exist.
  const grant = await authenticate(request, env.AUTH_SECRET, { allowQueryToken: match?.[2] === 'events' });
  if (!match) throw new HttpError(404, 'not_found', 'no such route (see /v1/sessions/:id/…)');
  let id;
  try {
    id = decodeURIComponent(match[1]);
  } catch {
    id = '';
  }
  if (!SESSION_ID.test(id)) throw new HttpError(400, 'invalid_session_id', 'a session id is 1–128 letters, digits, . _ -');
  authorize(grant, id);
  const methods = ROUTES[match[2] ?? ''];
  if (!methods) throw new HttpError(404, 'not_found', `no such route: ${match[2]}`);
  const action = methods[request.method];
  if (!action) {
    throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed here (${Object.keys(methods).join(', ')})`);
  }

  const headers = { 'x-cv-session': id };
  let body;
  switch (action) {
    case 'command': {
      const command = await readJsonObject(request, limit(env, 'MAX_COMMAND_BYTES', DEFAULT_MAX_COMMAND_BYTES));
      if (typeof command.type !== 'string' || !COMMANDS.has(command.type)) {
        throw new HttpError(400, 'unknown_command', `unknown command type ${JSON.stringify(command.type ?? null)} (known: ${[...COMMANDS].join(', ')})`);
      }
      const key = request.headers.get('idempotency-key');
      if (key !== null) {
        if (!KEY.test(key)) throw new HttpError(400, 'invalid_idempotency_key', 'an Idempotency-Key is 1–200 visible ASCII characters');
        headers['idempotency-key'] = key;
      }
      const fault = request.headers.get('x-test-fault');
      if (fault && env.TEST_FAULTS === '1') headers['x-test-fault'] = fault;
      body = JSON.stringify(command);
      break;
    }
    case 'build':
      body = JSON.stringify(await readJsonObject(request, limit(env, 'MAX_COMMAND_BYTES', DEFAULT_MAX_COMMAND_BYTES)));
      break;
    case 'import':
      body = await readText(request, limit(env, 'MAX_IMPORT_BYTES', DEFAULT_MAX_IMPORT_BYTES));
      if (body.trim() === '') throw new HttpError(400, 'empty_body', 'send the session file as the body');
      break;
    case 'responses': {
      // The answer streams on to the session as it arrives; the object checks its size as it reads.
      const provider = url.searchParams.get('provider');
      if (provider !== null && !PROVIDERS.has(provider)) {
        throw new HttpError(400, 'unknown_provider', `unknown provider ${provider} (${[...PROVIDERS].join(', ')})`);
      }
      const max = limit(env, 'MAX_RESPONSE_BYTES', DEFAULT_MAX_RESPONSE_BYTES);
      const declared = Number(request.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > max) throw new HttpError(413, 'body_too_large', `the body is ${declared} bytes; the limit is ${max}`);
      const key = request.headers.get('idempotency-key');
      if (key !== null) {
        if (!KEY.test(key)) throw new HttpError(400, 'invalid_idempotency_key', 'an Idempotency-Key is 1–200 visible ASCII characters');
        headers['idempotency-key'] = key;
      }
      headers['x-cv-max-bytes'] = String(max);
      // The provider's response head, as the relay saw it: its status decides what the body is.
      const status = request.headers.get('x-provider-status');
      if (status !== null) {
        if (!/^[1-5][0-9][0-9]$/.test(status)) throw new HttpError(400, 'invalid_provider_status', 'X-Provider-Status is the provider\'s HTTP status, 100 to 599');
        headers['x-provider-status'] = status;
      }
      const providerHeaders = request.headers.get('x-provider-headers');
      if (providerHeaders !== null) {
        let parsed;
        try {
          parsed = JSON.parse(providerHeaders);
        } catch {
          parsed = null;
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
          throw new HttpError(400, 'invalid_provider_headers', 'X-Provider-Headers is a JSON object of the provider\'s response headers (strings)');
        }
        headers['x-provider-headers'] = providerHeaders;
      }
      const dropped = request.headers.get('x-provider-dropped');
      if (dropped !== null) headers['x-provider-dropped'] = dropped.slice(0, 500);
      const forwarded = new Request(`https://session/responses${url.search}`, { method: 'POST', headers, body: request.body, duplex: 'half' });
      return stub(env, id).fetch(forwarded);
    }
    case 'subagent': return startSubagent(request, env, id, grant);
    case 'events': {
      // The Durable Object accepts the socket and closes it when the token expires. The token
      // itself (it may be in the query) does not travel on.
      const upgrade = { upgrade: request.headers.get('upgrade') ?? '', ...headers };
      if (grant.exp) upgrade['x-cv-expires'] = String(grant.exp);
      return stub(env, id).fetch(new Request('https://session/events', { headers: upgrade }));
    }
    default:
      break;
  }
  const forwarded = new Request(`https://session/${action}${url.search}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body,
  });
  return stub(env, id).fetch(forwarded);
}

/**
 * Starts a subagent for one of a session's open delegation calls: the parent records it (as a
 * command), then the child's own Durable Object is made, `<parent id>.<call id>`, from what the
 * parent described. Replies 201 with the parent's processed command, the child's id and a token
 * for the child's session and its own subagents only. A child that could not be made leaves the
 * call open: end it with `endSubagent {toolCallId, error}`, or send the start again with the same
 * Idempotency-Key: a keyed start is kept by the parent, so a retry (its reply lost, or its child
 * not made) replays the parent's reply instead of starting a second child, makes the child if it
 * is not there yet, and answers 200 with a fresh token.
 */
async function startSubagent(request, env, id, grant) {
  const start = await readJsonObject(request, limit(env, 'MAX_COMMAND_BYTES', DEFAULT_MAX_COMMAND_BYTES));
  if (typeof start.toolCallId !== 'string' || start.toolCallId === '') throw new HttpError(400, 'invalid_subagent', 'give the delegation call\'s `toolCallId` and the `task`');
  if ('type' in start || 'sessionId' in start) throw new HttpError(400, 'invalid_subagent', 'the service names the child session itself: leave out `type` and `sessionId`');
  const childId = `${id}.${start.toolCallId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  if (!SESSION_ID.test(childId)) throw new HttpError(400, 'invalid_session_id', `the child's id (${childId.length} characters: the parent's, a dot, the call's) is over 128`);
  const headers = { 'x-cv-session': id, 'content-type': 'application/json' };
  const key = request.headers.get('idempotency-key');
  if (key !== null && !KEY.test(key)) throw new HttpError(400, 'invalid_idempotency_key', 'an Idempotency-Key is 1–200 visible ASCII characters');
  const parent = await stub(env, id).fetch(new Request('https://session/subagent-start', {
    method: 'POST', headers: key === null ? headers : { ...headers, 'idempotency-key': key }, body: JSON.stringify({ ...start, type: 'startSubagent', sessionId: childId }),
  }));
  const processed = await parent.json();
  if (parent.status !== 200) return Response.json(processed, { status: parent.status });
  const replayed = parent.headers.get('idempotent-replayed') === 'true';
  const fault = request.headers.get('x-test-fault');
  const childHeaders = { ...headers, 'x-cv-session': childId, ...(fault && env.TEST_FAULTS === '1' ? { 'x-test-fault': fault } : {}) };
  const made = await stub(env, childId).fetch(new Request('https://session/subagent-init', {
    method: 'POST', headers: childHeaders, body: JSON.stringify(processed.reply.child),
  }));
  const child = await made.json();
  if (made.status !== 201 && made.status !== 200) return Response.json({ parent: processed, ...child }, { status: made.status });
  const ttl = grant.exp ? Math.max(1, Math.min(3600, grant.exp - Math.floor(Date.now() / 1000))) : 3600;
  const token = await mintToken(env.AUTH_SECRET, { session: childId, ttlSeconds: ttl });
  const again = replayed ? { 'idempotent-replayed': 'true' } : {};
  return Response.json({ parent: processed, child, token }, { status: replayed ? 200 : 201, headers: { 'x-cv-session': childId, ...again } });
}

function stub(env, id) {
  return env.SESSIONS.get(env.SESSIONS.idFromName(id));
}
