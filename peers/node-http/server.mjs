#!/usr/bin/env node
// peer-node: an independent implementation of the Records, Files, Links and Proposal Scheduling
// Service interface, on node:http with an in-memory store. Start: node server.mjs --port N
import http from 'node:http';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { ApiError, Store } from './domains.mjs';
import * as api from './api.mjs';
import { BadParams, CannotExist, PROTOCOL, states } from './states.mjs';

const PROBLEM_BASE = 'https://peer-node.example.test/problems/';
const TITLES = new Map([
  [400, 'Bad Request'], [401, 'Unauthorized'], [403, 'Forbidden'], [404, 'Not Found'], [405, 'Method Not Allowed'],
  [409, 'Conflict'], [413, 'Payload Too Large'], [415, 'Unsupported Media Type'], [422, 'Unprocessable Content'],
  [500, 'Internal Server Error'], [501, 'Not Implemented'],
]);
const MAX_BODY = 2 * 1024 * 1024;

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string,string>} [headers]
 */
function send(res, status, body, headers = {}) {
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {string} slug
 * @param {string} detail
 * @param {string} instance
 * @param {Record<string, unknown>} [extra]
 */
function problem(res, status, slug, detail, instance, extra = {}, headers = {}) {
  const body = { type: PROBLEM_BASE + slug, title: TITLES.get(status) ?? 'Error', status, detail, instance, ...extra };
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** @param {http.IncomingMessage} req */
function readBody(req) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, 'body-too-large', `The body is larger than ${MAX_BODY} bytes.`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** @param {string} text */
function parseJson(text) {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'malformed-json', 'The body is not valid JSON.');
  }
}

function parseArgs(argv) {
  let port = 8080;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--port') port = Number(argv[++i]);
    else if (argv[i].startsWith('--port=')) port = Number(argv[i].slice(7));
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write('usage: node server.mjs --port N\n');
    process.exit(2);
  }
  return { port };
}

/** @param {Store} store */
export function createServer(store) {
  const stateTable = states(store);

  /** @param {http.IncomingMessage} req */
  function authenticate(req) {
    const h = req.headers.authorization;
    const m = typeof h === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
    if (!m) throw new ApiError(401, 'unauthenticated', 'Send an API token as "Authorization: Bearer <token>".');
    const s = store.tokens.get(m[1]);
    if (!s) throw new ApiError(401, 'invalid-token', 'The token is not known.');
    if (s.expiresAt <= Date.now()) throw new ApiError(401, 'token-expired', 'The token has expired.');
    const user = store.users.get(s.userId);
    if (!user) throw new ApiError(401, 'invalid-token', 'The token belongs to no user.');
    return user;
  }

  async function providerState(req, res) {
    if (req.method !== 'POST') return problem(res, 405, 'method-not-allowed', 'POST only.', req.url, {}, { Allow: 'POST' });
    let body;
    try {
      body = parseJson(await readBody(req));
    } catch {
      return problem(res, 400, 'malformed-json', 'The body is not JSON.', req.url);
    }
    if (!body || typeof body !== 'object') return problem(res, 400, 'malformed-request', 'The body must be an object.', req.url);
    const st = stateTable.get(body.state);
    if (!st) return problem(res, 400, 'unknown-state', `Unknown provider state: ${body.state}.`, req.url);
    const params = body.params;
    if (!params || typeof params.setupId !== 'string' || params.setupId === '') return problem(res, 400, 'malformed-request', 'params.setupId is required.', req.url);
    try {
      if (body.action === 'setup') return send(res, 200, { protocol: PROTOCOL, ...st.setup(params) });
      if (body.action === 'teardown') {
        if (typeof st.teardown === 'function') st.teardown(params);
        store.teardown(params.setupId);
        return send(res, 200, {});
      }
      return problem(res, 400, 'malformed-request', "action must be 'setup' or 'teardown'.", req.url);
    } catch (e) {
      if (e instanceof BadParams) return problem(res, 400, 'unsupported-params', e.message, req.url);
      if (e instanceof CannotExist) return problem(res, 501, 'fixture-cannot-exist', e.message, req.url, { code: 'FixtureCannotExist' });
      throw e;
    }
  }

  /**
   * @param {http.IncomingMessage} req
   * @param {string[]} seg path segments after /api
   * @param {URLSearchParams} q
   */
  async function route(req, seg, q) {
    const method = req.method ?? 'GET';
    const allow = (methods) => {
      if (!methods.includes(method)) throw Object.assign(new ApiError(405, 'method-not-allowed', `${method} is not allowed here.`), { allow: methods.join(', ') });
    };
    const user = authenticate(req);
    const ctx = { store, user, resolve: false };
    const body = async () => parseJson(await readBody(req));
    const n = seg.length;
    if (n === 1 && seg[0] === 'Domains') { allow(['GET']); return api.listDomains(ctx); }
    if (n === 2 && seg[0] === 'Link') {
      if (seg[1] === 'Query') { allow(['GET']); return api.linkQuery(ctx, q); }
      if (seg[1] === 'Upsert') { allow(['POST']); return api.linkUpsert(ctx, await body()); }
      if (seg[1] === 'Remove') { allow(['POST']); return api.linkRemove(ctx, await body()); }
    }
    if (n >= 4 && seg[0] === 'Quotes' && seg[1] === 'Proposals') {
      const pid = seg[2];
      if (n === 4 && seg[3] === 'BindStatus') { allow(['GET']); return api.bindStatus(ctx, pid); }
      if (n === 4 && seg[3] === 'QueueBindQuote') { allow(['POST']); return api.queueBind(ctx, pid); }
      if (n === 4 && seg[3] === 'BindQuote') { allow(['POST']); return api.bindNow(ctx, pid); }
      if (n === 4 && seg[3] === 'CreateMember') { allow(['POST']); return api.createMember(ctx, pid, await body()); }
      if (n === 6 && seg[3] === 'Schedules' && seg[5] === 'UpsertMulti') { allow(['POST']); return api.upsertMulti(ctx, pid, seg[4], q, await body()); }
      if (n === 6 && seg[3] === 'Schedules') { allow(['DELETE']); return api.deleteSchedule(ctx, pid, seg[4], seg[5]); }
      if (n === 7 && seg[3] === 'Schedules' && seg[6] === 'Reinstate') { allow(['POST']); return api.reinstate(ctx, pid, seg[4], seg[5]); }
      throw new ApiError(404, 'not-found', 'No such proposal operation.');
    }
    if (n === 2 && seg[1] === 'Query') { allow(['GET']); return api.queryRecords(ctx, seg[0], q); }
    if (n === 2) { allow(['GET']); return api.readRecord(ctx, seg[0], seg[1], q); }
    if (n === 3 && seg[2] === 'Files') { allow(['GET']); return api.attachedFiles(ctx, seg[0], seg[1], q); }
    throw new ApiError(404, 'not-found', 'There is no such resource.');
  }

  return http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    try {
      if (path === '/_provider-states') return await providerState(req, res);
      if (path === '/' || path === '/health') {
        return send(res, 200, { service: 'peer-node (Records, Files, Links and Proposal Scheduling)', status: 'ok', api: '/api' });
      }
      if (!path.startsWith('/api/')) return problem(res, 404, 'not-found', 'There is no such resource.', path);
      let seg;
      try {
        seg = path.slice(5).split('/').map((s) => decodeURIComponent(s));
      } catch {
        return problem(res, 400, 'malformed-path', 'The path is not valid percent-encoding.', path);
      }
      if (seg.length && seg[seg.length - 1] === '') seg.pop();
      // an occasional answer comes late (up to 300 ms), as from a busy service
      if (Math.random() < 0.08) await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
      const r = await route(req, seg, url.searchParams);
      return send(res, r.status, r.body, r.headers);
    } catch (e) {
      if (e instanceof ApiError) {
        const headers = {};
        if (e.status === 401) headers['WWW-Authenticate'] = 'Bearer realm="api"';
        if (e.status === 405 && e.allow) headers.Allow = e.allow;
        return problem(res, e.status, e.slug, e.message, path, {}, headers);
      }
      process.stderr.write(`internal error on ${req.method} ${path}: ${e && e.stack ? e.stack : e}\n`);
      if (!res.headersSent) problem(res, 500, 'internal', 'An internal error occurred.', path);
      else res.end();
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('server.mjs')) {
  const { port } = parseArgs(process.argv.slice(2));
  const server = createServer(new Store());
  server.keepAliveTimeout = 5000;
  server.listen(port, '127.0.0.1', () => {
    const addr = server.address();
    const p = typeof addr === 'object' && addr ? addr.port : port;
    process.stdout.write(`listening on http://127.0.0.1:${p}\n`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections?.();
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
