// protocol.test.mjs: toolcell-fs's MCP lifecycle seen by the official client:
// initialize, tools/list, protocol errors, concurrency, cancellation and
// shutdown.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { McpError, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

import {
	CALL_TIMEOUT, FS_TOOL_NAMES, call, makeTree, runAs, serverCommand, startServer, textOf,
	withTimeout,
} from './lib.mjs';

const TOOLS = [...FS_TOOL_NAMES].sort();

/* Asserts |text| names |dir| with |access| right after it (within 20 chars). */
function assertMentions(text, dir, access) {
	const i = text.indexOf(dir);
	assert.ok(i >= 0, `instructions do not mention ${dir}: ${text}`);
	const after = text.slice(i + dir.length, i + dir.length + 20);
	assert.ok(after.includes(access),
	    `instructions do not say ${dir} is ${access}: ${text}`);
}

describe('initialize and tools/list', () => {
	let tree;
	let srv;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n', 'other/b.txt': 'b\n' });
		srv = await startServer([tree.root, tree.p('other')]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	test('negotiates the SDK\'s latest protocol version', () => {
		assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
		assert.equal(srv.initResult?.protocolVersion, '2025-11-25');
		const req = srv.sent.find((m) => m.method === 'initialize');
		assert.equal(req.params.protocolVersion, '2025-11-25');
	});

	test('serverInfo has the name and a version', () => {
		const info = srv.client.getServerVersion();
		assert.equal(info.name, 'toolcell-fs');
		assert.equal(typeof info.version, 'string');
		assert.match(info.version, /^\d+\.\d+\.\d+/);
		assert.equal(srv.initResult.serverInfo.name, 'toolcell-fs');
	});

	test('instructions name each allowed directory and its access', () => {
		const text = srv.client.getInstructions();
		assert.equal(typeof text, 'string');
		assertMentions(text, tree.root, 'read-only');
		assertMentions(text, tree.p('other'), 'read-only');
		assert.ok(!text.includes('read-write'), text);
	});

	test('capabilities declare tools and resources, and nothing else', () => {
		const caps = srv.initResult.capabilities;
		assert.deepEqual(Object.keys(caps).sort(), ['resources', 'tools']);
		assert.equal(typeof caps.tools, 'object');
		assert.notEqual(caps.tools.listChanged, true, 'listChanged without notifications');
		assert.deepEqual(caps.resources, { listChanged: true });
		assert.deepEqual(Object.keys(srv.client.getServerCapabilities()).sort(), ['resources', 'tools']);
	});

	test('the initialize result has no undeclared members', () => {
		const allowed = new Set(['protocolVersion', 'capabilities', 'serverInfo', 'instructions', '_meta']);
		for (const k of Object.keys(srv.initResult))
			assert.ok(allowed.has(k), `unexpected initialize member '${k}'`);
		const infoAllowed = new Set(['name', 'title', 'version', 'description', 'icons', 'websiteUrl']);
		for (const k of Object.keys(srv.initResult.serverInfo))
			assert.ok(infoAllowed.has(k), `unexpected serverInfo member '${k}'`);
	});

	test('tools/list gives exactly the read-only tools, well formed', async () => {
		const { tools, nextCursor } = await srv.client.listTools();
		assert.equal(nextCursor, undefined);
		assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
		for (const t of tools) {
			assert.match(t.name, /^[a-z][a-z0-9_]{0,39}$/);
			assert.equal(typeof t.description, 'string');
			assert.ok(t.description.length > 10, `${t.name}: description too short`);
			assert.equal(t.inputSchema.type, 'object', t.name);
			assert.equal(t.inputSchema.additionalProperties, false, t.name);
			// read_media_file alone promises no structuredContent:
			// a host that passes on only that half would drop its
			// image (fs-read.test.mjs).
			if (t.name === 'read_media_file') {
				assert.equal(t.outputSchema, undefined, t.name);
			} else {
				assert.equal(typeof t.outputSchema, 'object', `${t.name}: no outputSchema`);
				assert.equal(t.outputSchema.type, 'object', t.name);
				assert.equal(typeof srv.client.getToolOutputValidator(t.name), 'function',
				    `${t.name}: the SDK compiled no output validator`);
			}
			assert.equal(t.annotations?.readOnlyHint, true, `${t.name}: readOnlyHint`);
			assert.equal(t.annotations?.openWorldHint, false, `${t.name}: openWorldHint`);
			assert.notEqual(t.annotations?.destructiveHint, true, `${t.name}: destructiveHint`);
			for (const [name, prop] of Object.entries(t.inputSchema.properties ?? {})) {
				assert.ok(prop.type, `${t.name}.${name}: no type`);
				assert.ok(!Array.isArray(prop.type), `${t.name}.${name}: type union`);
				if (prop.type === 'array')
					assert.ok(prop.items, `${t.name}.${name}: array without items`);
			}
			// The output schemas too, at every depth: no type unions
			// (a value of two kinds is an anyOf of typed schemas), and
			// every array says what it holds.
			(function walk(sch, where) {
				if (sch === null || typeof sch !== 'object')
					return;
				assert.ok(!Array.isArray(sch.type), `${where}: type union`);
				if (sch.type === 'array')
					assert.ok(sch.items, `${where}: array without items`);
				for (const [k, v] of Object.entries(sch))
					walk(v, `${where}.${k}`);
			})(t.outputSchema, `${t.name} outputSchema`);
		}
		const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
		assert.deepEqual(byName.read_text_file.inputSchema.required, ['path']);
		assert.deepEqual(Object.keys(byName.read_text_file.inputSchema.properties).sort(),
		    ['head', 'limit', 'max_bytes', 'offset', 'path', 'tail']);
		assert.equal(byName.read_text_file.inputSchema.properties.head.type, 'integer');
		assert.deepEqual(byName.list_directory.inputSchema.required, ['path']);
		assert.deepEqual(byName.get_file_info.inputSchema.required, ['path']);
		assert.deepEqual(Object.keys(byName.list_allowed_directories.inputSchema.properties ?? {}), []);
	});

	test('tools/list in raw form has no stray members', () => {
		const raw = srv.messages.find((m) => Array.isArray(m.result?.tools));
		assert.ok(raw, 'no raw tools/list result seen');
		const allowed = new Set(['name', 'title', 'description', 'inputSchema', 'outputSchema',
		    'annotations', 'icons', 'execution', '_meta']);
		for (const t of raw.result.tools) {
			for (const k of Object.keys(t))
				assert.ok(allowed.has(k), `${t.name}: unexpected member '${k}'`);
			assert.equal(t.execution, undefined, `${t.name}: declares execution/tasks`);
		}
	});

	test('list_allowed_directories lists both roots read-only', async () => {
		const r = await call(srv, 'list_allowed_directories', {});
		assert.notEqual(r.isError, true);
		assert.deepEqual(r.structuredContent.directories, [
			{ path: tree.root, access: 'read-only' },
			{ path: tree.p('other'), access: 'read-only' },
		]);
	});

	test('a call without arguments is taken as {}', async () => {
		const r = await srv.client.callTool({ name: 'list_allowed_directories' });
		assert.notEqual(r.isError, true, JSON.stringify(r));
		assert.equal(r.structuredContent.directories.length, 2);
	});

	test('an unknown tool is a JSON-RPC error -32602', async () => {
		await assert.rejects(call(srv, 'no_such_tool', {}), (e) => {
			assert.ok(e instanceof McpError, `not an McpError: ${e}`);
			assert.equal(e.code, -32602);
			return true;
		});
	});

	test('ping answers {}', async () => {
		assert.deepEqual(await srv.client.ping(), {});
	});

	test('the server runs as TOOLCELL_AS when that is set, else as us', () => {
		const as = runAs();
		const uid = as ? as.uid : process.getuid();
		const gid = as ? as.gid : process.getgid();
		const status = readFileSync(`/proc/${srv.pid}/status`, 'utf8');
		const field = (k) => status.match(new RegExp(`^${k}:[ \\t]*(.*)$`, 'm'))?.[1].trim();
		assert.deepEqual(field('Uid').split(/\s+/).map(Number), [uid, uid, uid, uid]);
		assert.deepEqual(field('Gid').split(/\s+/).map(Number), [gid, gid, gid, gid]);
		if (as)
			assert.equal(field('Groups'), '', 'supplementary groups were not cleared');
	});

	test('no JSON-RPC errors reported by the client so far', () => {
		assert.deepEqual(srv.clientErrors.map(String), []);
	});
});

describe('requests the server cannot take', () => {
	let tree;
	let srv;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n' });
		srv = await startServer([tree.root, '--max-message-bytes', '2000']);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	/*
	 * Calls |args| with the SDK's own timeout (60 s) and expects its
	 * McpError |code|, matching |re|, within 5 s: an error the client could
	 * not match to the call (no id) would leave it waiting for the timeout.
	 */
	async function refusedPromptly(args, code, re) {
		const t0 = Date.now();
		const p = srv.client.callTool({ name: 'read_text_file', arguments: args });
		await assert.rejects(withTimeout(p, 5000, 'the refused call'), (e) => {
			assert.ok(e instanceof McpError, `not an McpError: ${e}`);
			assert.equal(e.code, code, e.message);
			assert.match(e.message, re);
			return true;
		});
		assert.ok(Date.now() - t0 < 5000);
	}

	test('a lone surrogate in an argument is -32600, answered at once', async () => {
		// Half an emoji: JSON.stringify writes it as the escape \ud83d.
		const path = 'caf\uD83D';
		assert.match(JSON.stringify(path), /\\ud83d/);
		await refusedPromptly({ path }, -32600, /lone UTF-16 surrogate escape/);
		const sent = srv.sent.at(-1);
		assert.equal(sent.params.arguments.path, path);
		assert.ok(srv.messages.some((m) => m.id === sent.id && m.error?.code === -32600),
		    'the error carries the call\'s id');
	});

	test('so is a lone low surrogate in an argument\'s name', async () => {
		await refusedPromptly({ path: 'a.txt', ['\uDC00']: 1 }, -32600,
		    /lone UTF-16 surrogate escape/);
	});

	test('an over-long call is -32600, answered at once under its id', async () => {
		// The SDK writes the id last, after 3000 bytes of arguments.
		await refusedPromptly({ path: 'x'.repeat(3000) }, -32600,
		    /exceeds the 2000-byte limit/);
	});

	test('the whole surrogate pair is a character, and served', async () => {
		const r = await call(srv, 'read_text_file', { path: 'a.txt', head: 1 });
		assert.notEqual(r.isError, true, JSON.stringify(r));
		assert.equal(textOf(r), 'alpha\n');
		const e = await call(srv, 'read_text_file', { path: 'caf\uD83D\uDE00' });
		assert.equal(e.isError, true, 'a file that does not exist');
	});

	test('no error the client could not match to a request', () => {
		assert.deepEqual(srv.clientErrors.map(String), []);
		assert.deepEqual(srv.messages.filter((m) => m.error && m.id === undefined), []);
	});
});

describe('--write', () => {
	let tree;
	let srv;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n' });
		srv = await startServer(['--write', tree.root]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	test('list_allowed_directories says read-write', async () => {
		const r = await call(srv, 'list_allowed_directories', {});
		assert.notEqual(r.isError, true);
		assert.deepEqual(r.structuredContent.directories, [{ path: tree.root, access: 'read-write' }]);
		assert.match(textOf(r), /read-write/);
	});

	test('instructions say read-write', () => {
		assertMentions(srv.client.getInstructions(), tree.root, 'read-write');
	});
});

describe('concurrency and cancellation', () => {
	// Calls in flight at once.  The server's default in-flight limit is
	// lower than this (see policy.c); calls beyond it should wait their
	// turn, not be refused.
	const N = 20;
	// Within the limit, for the ping test.
	const WITHIN = 16;
	let tree;
	let srv;

	before(async () => {
		const spec = {};
		for (let i = 0; i < N; i++) {
			spec[`f${i}.txt`] = `file ${i}\n`.repeat(i + 1);
			// Big enough that the calls overlap.
			spec[`g${i}.txt`] = `${String(i).padStart(2, '0')}${'y'.repeat(61)}\n`.repeat(8192);
		}
		spec['big.txt'] = 'x'.repeat(99) + '\n';
		for (let i = 0; i < 14; i++)
			spec['big.txt'] += spec['big.txt'];
		tree = await makeTree(spec);
		srv = await startServer([tree.root]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	test(`${N} calls in flight at once all get their own answers`, async () => {
		const calls = [];
		for (let i = 0; i < N; i++)
			calls.push(call(srv, 'read_text_file', { path: tree.p(`g${i}.txt`), max_bytes: 1 << 20 }));
		const ping = srv.client.ping();
		const results = await Promise.all(calls);
		assert.deepEqual(await ping, {});
		const wrong = [];
		results.forEach((r, i) => {
			const want = `${String(i).padStart(2, '0')}${'y'.repeat(61)}\n`.repeat(8192);
			if (r.isError === true)
				wrong.push(`call ${i}: isError: ${textOf(r)}`);
			else if (r.structuredContent.content !== want)
				wrong.push(`call ${i}: wrong content`);
		});
		assert.deepEqual(wrong, []);
	});

	test('ping is answered while calls are in flight', async (t) => {
		const order = [];
		const calls = [];
		for (let i = 0; i < WITHIN; i++) {
			calls.push(call(srv, 'read_text_file',
			    { path: tree.p('big.txt'), max_bytes: 2 << 20 })
			    .then((r) => { order.push('call'); return r; }));
		}
		const t0 = Date.now();
		const ping = srv.client.ping().then((r) => { order.push('ping'); return r; });
		assert.deepEqual(await withTimeout(ping, 5000, 'ping during calls'), {});
		const pingMs = Date.now() - t0;
		const results = await Promise.all(calls);
		for (const r of results) {
			assert.notEqual(r.isError, true, textOf(r));
			assert.equal(r.structuredContent.size, 100 << 14);
			assert.equal(Buffer.byteLength(r.content[0].text), 100 << 14);
			assert.equal(r.structuredContent.content, r.content[0].text);
		}
		// Informational: where the ping's answer fell among the calls'.
		t.diagnostic(`ping answered after ${pingMs} ms, at position ${order.indexOf('ping') + 1} of ${WITHIN + 1}; all calls took ${Date.now() - t0} ms`);
	});

	test('mixed tools in flight at once', async () => {
		const [a, b, c, d] = await Promise.all([
			call(srv, 'list_directory', { path: tree.root }),
			call(srv, 'get_file_info', { path: tree.p('f3.txt') }),
			call(srv, 'list_allowed_directories', {}),
			call(srv, 'read_text_file', { path: tree.p('f1.txt'), head: 1 }),
		]);
		assert.equal(a.structuredContent.total, 2 * N + 1);
		assert.equal(b.structuredContent.size, 'file 3\n'.length * 4);
		assert.equal(c.structuredContent.directories[0].path, tree.root);
		assert.equal(d.structuredContent.content, 'file 1\n');
	});

	test('a cancelled call does not stop the server', async (t) => {
		const ac = new AbortController();
		const p = call(srv, 'read_text_file', { path: tree.p('big.txt'), max_bytes: 2 << 20 },
		    { signal: ac.signal });
		setImmediate(() => ac.abort('test cancels'));
		let outcome;
		try {
			await p;
			outcome = 'finished before the cancel';
		} catch (e) {
			assert.ok(e instanceof McpError, `${e}`);
			outcome = 'cancelled';
		}
		t.diagnostic(`cancelled call: ${outcome}`);
		const sent = srv.sent.filter((m) => m.method === 'notifications/cancelled');
		if (outcome === 'cancelled')
			assert.ok(sent.length >= 1, 'the client sent no notifications/cancelled');
		const r = await call(srv, 'read_text_file', { path: tree.p('f0.txt') });
		assert.equal(r.structuredContent.content, 'file 0\n');
		assert.deepEqual(await srv.client.ping(), {});
	});

	test('many cancellations at once, then the server still serves', async (t) => {
		const pending = [];
		for (let i = 0; i < N; i++) {
			const ac = new AbortController();
			pending.push(call(srv, 'read_text_file', { path: tree.p('big.txt'), max_bytes: 2 << 20 },
			    { signal: ac.signal }).then(() => 'done', () => 'cancelled'));
			if (i % 2 === 0)
				ac.abort('now');
			else
				setTimeout(() => ac.abort('later'), i);
		}
		const outcomes = await Promise.all(pending);
		await srv.client.ping();
		const late = srv.clientErrors.filter((e) => /unknown message ID/i.test(String(e))).length;
		t.diagnostic(`outcomes: ${outcomes.filter((o) => o === 'cancelled').length} cancelled; ` +
		    `${late} answers arrived for cancelled requests (allowed when the call had finished)`);
		// Cancelled requests must not leave the server stuck or busy: a
		// ping, then 8 calls at once (below the in-flight limit).
		assert.deepEqual(await srv.client.ping(), {});
		const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
		    call(srv, 'read_text_file', { path: tree.p(`f${i}.txt`) })));
		results.forEach((r, i) => {
			assert.notEqual(r.isError, true, `after cancels, call ${i}: ${textOf(r)}`);
			assert.equal(r.structuredContent.content, `file ${i}\n`.repeat(i + 1));
		});
	});
});

describe('shutdown', () => {
	let tree;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n' });
	});

	after(async () => {
		await tree?.cleanup();
	});

	test('after client.close() the server exits 0 on its own, within 2 s', async () => {
		const srv = await startServer([tree.root]);
		const r = await call(srv, 'read_text_file', { path: tree.p('a.txt') });
		assert.equal(r.structuredContent.content, 'alpha\n');
		const t0 = Date.now();
		await srv.close();
		const ex = await withTimeout(srv.exit, 6000, 'server exit');
		assert.equal(ex.unknown, undefined, 'could not watch the server process');
		assert.equal(ex.signal, null, `killed by ${ex.signal} (the SDK sends SIGTERM after 2 s)`);
		assert.equal(ex.code, 0);
		assert.ok(ex.at - t0 < 2000, `took ${ex.at - t0} ms`);
	});

	/* Spawns the server directly; returns {child, out(), err(), exit}. */
	async function spawnRaw(args) {
		const cmd = await serverCommand(args);
		const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'pipe'] });
		let out = '';
		let errText = '';
		child.stdout.setEncoding('utf8');
		child.stderr.setEncoding('utf8');
		child.stdout.on('data', (s) => { out += s; });
		child.stderr.on('data', (s) => { errText += s; });
		const exit = new Promise((resolve) => child.on('exit',
		    (code, signal) => resolve({ code, signal, at: Date.now() })));
		return { child, out: () => out, err: () => errText, exit };
	}

	const init = {
		jsonrpc: '2.0', id: 1, method: 'initialize',
		params: { protocolVersion: '2025-11-25', capabilities: {},
		    clientInfo: { name: 'raw', version: '0' } },
	};

	test('stdin EOF after initialize: exit 0 within 2 s, stdout only JSON lines', async () => {
		const s = await spawnRaw([tree.root]);
		try {
			s.child.stdin.write(`${JSON.stringify(init)}\n`);
			s.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
			s.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call',
			    params: { name: 'read_text_file', arguments: { path: 'a.txt' } } })}\n`);
			const t0 = Date.now();
			s.child.stdin.end();
			const ex = await withTimeout(s.exit, 2000, 'exit after stdin EOF');
			assert.equal(ex.signal, null);
			assert.equal(ex.code, 0, `stderr: ${s.err()}`);
			assert.ok(ex.at - t0 < 2000);
			const lines = s.out().split('\n');
			assert.equal(lines.pop(), '', 'stdout does not end with a newline');
			const msgs = lines.map((l) => JSON.parse(l));
			const byId = Object.fromEntries(msgs.map((m) => [m.id, m]));
			assert.equal(byId[1]?.result?.protocolVersion, '2025-11-25');
			assert.equal(byId[1]?.result?.serverInfo?.name, 'toolcell-fs');
			// The call was made before EOF: it may be answered or dropped,
			// but if answered it must be right.
			if (byId[2])
				assert.equal(byId[2].result?.structuredContent?.content, 'alpha\n');
			for (const m of msgs)
				assert.equal(m.jsonrpc, '2.0');
		} finally {
			s.child.kill('SIGKILL');
		}
	});

	test('stdin EOF with no traffic at all: exit 0, nothing on stdout', async () => {
		const s = await spawnRaw([tree.root]);
		try {
			s.child.stdin.end();
			const ex = await withTimeout(s.exit, 2000, 'exit after immediate EOF');
			assert.equal(ex.code, 0, `stderr: ${s.err()}`);
			assert.equal(s.out(), '');
		} finally {
			s.child.kill('SIGKILL');
		}
	});

	/* README: on SIGTERM or SIGINT the server stops its calls and exits 0. */
	for (const sig of ['SIGTERM', 'SIGINT']) {
		test(`${sig}: the server exits 0 promptly`, async () => {
			const s = await spawnRaw([tree.root]);
			try {
				s.child.stdin.write(`${JSON.stringify(init)}\n`);
				await withTimeout(new Promise((resolve) => {
					const check = () => (s.out().includes('\n') ? resolve() : setTimeout(check, 10));
					check();
				}), CALL_TIMEOUT, 'initialize answer');
				s.child.kill(sig);
				const ex = await withTimeout(s.exit, 2000, `exit after ${sig}`);
				assert.equal(ex.signal, null, `killed by ${ex.signal}: ${JSON.stringify(ex)}`);
				assert.equal(ex.code, 0, `exit ${JSON.stringify(ex)}`);
			} finally {
				s.child.kill('SIGKILL');
			}
		});
	}
});
