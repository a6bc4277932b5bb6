#!/usr/bin/env node
// Mints a client token: `AUTH_SECRET=… node token.mjs --prefix acme- [--ttl 3600]` reaches sessions
// whose id starts with the prefix; `--session ID` reaches that session and its subagents' only.
// Either until it expires.
import { parseArgs } from 'node:util';
import { mintToken } from './src/auth.mjs';

const { values } = parseArgs({ options: { prefix: { type: 'string' }, session: { type: 'string' }, ttl: { type: 'string', default: '3600' } } });
const secret = process.env.AUTH_SECRET;
if (!secret || (values.prefix === undefined) === (values.session === undefined)) {
  console.error('usage: AUTH_SECRET=… node token.mjs (--prefix PREFIX | --session ID) [--ttl SECONDS]');
  process.exit(2);
}
if (!/^[1-9][0-9]*$/.test(values.ttl)) {
  console.error(`--ttl must be a whole number of seconds, got '${values.ttl}'`);
  process.exit(2);
}
const scope = values.prefix !== undefined ? { prefix: values.prefix } : { session: values.session };
console.log(await mintToken(secret, { ...scope, ttlSeconds: Number(values.ttl) }));
