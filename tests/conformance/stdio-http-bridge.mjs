// stdio-http-bridge.mjs: puts a stdio MCP server behind Streamable HTTP on
// the loopback, so that the official conformance suite
// (@modelcontextprotocol/conformance), which speaks only HTTP, can test
// it.  Each MCP session (an initialize POST without a session id) starts
// one process of the server over stdio; messages pass both ways as they
// are, so initialize and version negotiation reach the server itself.
//
//   node tests/conformance/stdio-http-bridge.mjs PORT -- SERVER [ARG...]
//
// PORT 0 takes any free port.
// Messages the server sends without an id of the client's request are
// routed to the request they belong to: progress by its token, anything
// else (logging, roots/list, elicitation) to the newest request still
// open, and to the session's standalone stream when none is.  A session
// idle for 20 s is closed, with its process (the suite never deletes its
// sessions); SIGTERM and SIGINT close every session.  A request whose
// Host is not this loopback address and port, or whose Origin is another
// site, is refused with 403 before it reaches a session (DNS rebinding).  The bridge prints
// "listening on URL" on stderr once it accepts connections.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const sdk = path.join(here, '../e2e/sdk/node_modules/@modelcontextprotocol/sdk/dist/esm');
const { StdioClientTransport } = await import(path.join(sdk, 'client/stdio.js'));
const { StreamableHTTPServerTransport } = await import(path.join(sdk, 'server/streamableHttp.js'));

const IDLE_MS = 20_000;
const dash = process.argv.indexOf('--');
const port = Number(process.argv[2]);
if (dash !== 3 || dash + 1 >= process.argv.length || !Number.isInteger(port)) {
	console.error('usage: stdio-http-bridge.mjs PORT -- SERVER [ARG...]');
	process.exit(2);
}
const command = process.argv[dash + 1];
const args = process.argv.slice(dash + 2);
const sessions = new Map();

function log(msg) {
	console.error(`stdio-http-bridge: ${msg}`);
}

async function closeSession(s) {
	if (s.closed)
		return;
	s.closed = true;
	clearTimeout(s.timer);
	if (s.id !== undefined)
		sessions.delete(s.id);
	await Promise.allSettled([s.http.close(), s.stdio.close()]);
}

function touch(s) {
	clearTimeout(s.timer);
	s.timer = setTimeout(() => closeSession(s), IDLE_MS);
	s.timer.unref();
}

/* The client's request a message from the server belongs to, if any. */
function relatedTo(s, msg) {
	const token = msg.params?.progressToken;
	if (msg.method === 'notifications/progress' && s.byToken.has(token))
		return s.byToken.get(token);
	const open = [...s.open.keys()];
	return open.length > 0 ? open[open.length - 1] : undefined;
}

async function newSession() {
	const s = { open: new Map(), byToken: new Map(), closed: false };
	s.stdio = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
	s.http = new StreamableHTTPServerTransport({
		sessionIdGenerator: () => randomUUID(),
		onsessioninitialized: (id) => {
			s.id = id;
			sessions.set(id, s);
		},
	});
	s.http.onmessage = (msg) => {
		touch(s);
		if (msg.method !== undefined && msg.id !== undefined) {
			const token = msg.params?._meta?.progressToken;
			s.open.set(msg.id, token);
			if (token !== undefined)
				s.byToken.set(token, msg.id);
		}
		s.stdio.send(msg).catch((e) => log(`to the server: ${e.message}`));
	};
	s.stdio.onmessage = (msg) => {
		touch(s);
		let related;
		if (msg.method === undefined && msg.id !== undefined) {
			s.byToken.delete(s.open.get(msg.id));
			s.open.delete(msg.id);
		} else {
			related = relatedTo(s, msg);
		}
		s.http.send(msg, related === undefined ? undefined : { relatedRequestId: related })
		    .catch((e) => log(`to the client: ${e.message}`));
	};
	s.stdio.onclose = () => closeSession(s);
	s.http.onclose = () => closeSession(s);
	await s.stdio.start();
	await s.http.start();
	touch(s);
	return s;
}

async function body(req) {
	const parts = [];
	for await (const p of req)
		parts.push(p);
	const text = Buffer.concat(parts).toString('utf8');
	return text === '' ? undefined : JSON.parse(text);
}

function refuse(res, status, message) {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

const hosts = new Set();
const server = http.createServer(async (req, res) => {
	try {
		const origin = req.headers.origin;
		if (!hosts.has(req.headers.host) ||
		    (origin !== undefined && !hosts.has(origin.replace(/^http:\/\//, ''))))
			return refuse(res, 403, 'forbidden: not this loopback host');
		if (new URL(req.url, 'http://x').pathname !== '/mcp')
			return refuse(res, 404, 'not found');
		const parsed = req.method === 'POST' ? await body(req) : undefined;
		const sid = req.headers['mcp-session-id'];
		let s = sid === undefined ? undefined : sessions.get(sid);
		if (s === undefined) {
			const init = parsed?.method === 'initialize' ||
			    (Array.isArray(parsed) && parsed.some((m) => m?.method === 'initialize'));
			if (sid !== undefined && !init)
				return refuse(res, 404, 'no such session');
			if (!init)
				return refuse(res, 400, 'no session: initialize first');
			s = await newSession();
		}
		touch(s);
		await s.http.handleRequest(req, res, parsed);
	} catch (e) {
		log(e.message);
		if (!res.headersSent)
			refuse(res, e instanceof SyntaxError ? 400 : 500, e.message);
	}
});

async function stop() {
	server.close();
	await Promise.allSettled([...sessions.values()].map(closeSession));
	process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.listen(port, '127.0.0.1', () => {
	const bound = server.address().port;
	hosts.add(`127.0.0.1:${bound}`);
	hosts.add(`localhost:${bound}`);
	log(`listening on http://127.0.0.1:${bound}/mcp`);
});
