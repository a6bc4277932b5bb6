// Who may touch which session. Two kinds of bearer token:
//   - the operator's: the secret itself (AUTH_SECRET), compared in constant time; every session.
//   - a client's: `cv1.<payload>.<signature>`, base64url, the payload `{"p": prefix, "exp": unix
//     seconds}` signed with HMAC-SHA-256 under AUTH_SECRET; it reaches only sessions whose id
//     starts with `p`, until `exp`. Mint one with `node token.mjs` (same code, in Node).
// Runs on Web Crypto only, so the Worker and Node share it.

const encoder = new TextEncoder();

export class AuthError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function base64url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Bytes of base64url text, or null for anything else (never throws). */
function fromBase64url(text) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  try {
    const s = atob(text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

async function hmacKey(secret) {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/**
 * Equal strings, in time that does not depend on where they differ: both are hashed first, so
 * lengths leak nothing either, and the digests are compared with every byte visited.
 */
export async function constantTimeEqual(a, b) {
  const [x, y] = await Promise.all([a, b].map(async (s) => new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(s)))));
  if (typeof crypto.subtle.timingSafeEqual === 'function') return crypto.subtle.timingSafeEqual(x, y);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}

/**
 * A client token for sessions whose id starts with `prefix` — or, with `session`, for that
 * session and its subagents' (`<session>.<call>`, and theirs) and no other — valid for
 * `ttlSeconds`.
 */
export async function mintToken(secret, { prefix, session, ttlSeconds = 3600, now = Date.now() }) {
  if (!Number.isInteger(ttlSeconds)) throw new TypeError('ttlSeconds must be an integer');
  if (typeof secret !== 'string' || secret.length < 16) throw new TypeError('the secret must be a string of at least 16 characters');
  if ((prefix === undefined) === (session === undefined)) throw new TypeError('give a prefix or a session, one of the two');
  const scope = prefix ?? session;
  if (typeof scope !== 'string' || !/^[A-Za-z0-9._-]+$/.test(scope)) throw new TypeError(`${prefix !== undefined ? 'prefix' : 'session'}: letters, digits, . _ - only`);
  const claims = prefix !== undefined ? { p: prefix } : { t: session };
  const payload = base64url(encoder.encode(JSON.stringify({ ...claims, exp: Math.floor(now / 1000) + ttlSeconds })));
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(payload)));
  return `cv1.${payload}.${base64url(signature)}`;
}

/**
 * What the request's bearer token grants: `{operator: true}` or `{prefix, exp}`. Throws AuthError
 * 401 for a missing, malformed, forged or expired token.
 */
export async function authenticate(request, secret, { now = Date.now(), allowQueryToken = false } = {}) {
  if (typeof secret !== 'string' || secret.length < 16) {
    throw new AuthError(500, 'server_misconfigured', 'AUTH_SECRET is not set (at least 16 characters)');
  }
  const header = request.headers.get('authorization') ?? '';
  let token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  let fromQuery = false;
  if (!token && allowQueryToken) {
    token = new URL(request.url).searchParams.get('access_token') ?? '';
    fromQuery = token !== '';
  }
  if (!token) throw new AuthError(401, 'unauthorized', 'a bearer token is required (Authorization: Bearer …)');
  if (!token.startsWith('cv1.')) {
    // The operator's secret never travels in a URL (URLs end up in logs).
    if (!fromQuery && (await constantTimeEqual(token, secret))) return { operator: true };
    throw new AuthError(401, 'unauthorized', 'the token is not valid');
  }
  const parts = token.split('.');
  const [, payload, signature] = parts;
  const sig = parts.length === 3 ? fromBase64url(signature) : null;
  const ok = sig !== null && fromBase64url(payload) !== null &&
    (await crypto.subtle.verify('HMAC', await hmacKey(secret), sig, encoder.encode(payload)));
  if (!ok) throw new AuthError(401, 'unauthorized', 'the token is not valid');
  let claims;
  try {
    claims = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
  } catch {
    throw new AuthError(401, 'unauthorized', 'the token is not valid');
  }
  const scoped = (key) => typeof claims?.[key] === 'string' && claims[key] !== '';
  if (scoped('p') === scoped('t') || !Number.isFinite(claims?.exp)) {
    throw new AuthError(401, 'unauthorized', 'the token is not valid');
  }
  if (claims.exp * 1000 <= now) throw new AuthError(401, 'token_expired', 'the token has expired');
  return scoped('p') ? { prefix: claims.p, exp: claims.exp } : { tree: claims.t, exp: claims.exp };
}

/** Whether `grant` reaches session `id`: the operator every one, a prefix token those its prefix starts, a session's token that session and its subagents'. */
export function reaches(grant, id) {
  if (grant.operator) return true;
  if (grant.tree !== undefined) return id === grant.tree || id.startsWith(grant.tree + '.');
  return id.startsWith(grant.prefix);
}

/** Throws AuthError 403 unless `grant` reaches session `id`. */
export function authorize(grant, id) {
  if (reaches(grant, id)) return;
  throw new AuthError(403, 'forbidden', grant.tree !== undefined
    ? `this token reaches session "${grant.tree}" and its subagents' only`
    : `this token reaches sessions starting with "${grant.prefix}" only`);
}
