// wire.test.mjs: what the servers do with JSON-RPC lines that no SDK would
// send, written byte for byte to their stdin: every method sent as a
// notification (before initialize, after it, while calls are in flight),
// and the answer a server must still give after each.
//
// Every line a server writes must be one JSON text in valid UTF-8, whatever
// it was sent; Wire checks each line as it arrives.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	BUILD, CALL_TIMEOUT, fileUri, logRecords, makeScratch, makeTree, serverCommand,
	withTimeout,
} from './lib.mjs';

const HOSTILE = path.join(BUILD, 'tests', 'toolcell-hostile');
const utf8 = new TextDecoder('utf-8', { fatal: true });

/*
 * A client that writes raw lines.  Each line the server writes is kept as
 * it came (lines), parsed (messages), and checked: a line that is not
 * valid UTF-8 or not one JSON text is recorded in bad.
 */
class Wire {
	constructor(child) {
		this.child = child;
		this.lines = [];
		this.messages = [];
		this.bad = [];
		this.err = '';
		this.waiters = [];
		let pending = Buffer.alloc(0);
		child.stdout.on('data', (chunk) => {
			pending = Buffer.concat([pending, chunk]);
			let nl;
			while ((nl = pending.indexOf(0x0a)) >= 0) {
				this.take(pending.subarray(0, nl));
				pending = pending.subarray(nl + 1);
			}
		});
		child.stdout.on('end', () => {
			if (pending.length > 0)
				this.bad.push({ line: pending.toString('latin1'), why: 'no final newline' });
		});
		// A server that died shows in exit; writing to it is no error.
		child.stdin.on('error', () => {});
		child.stderr.setEncoding('utf8');
		child.stderr.on('data', (s) => { this.err += s; });
		this.exit = new Promise((resolve) => child.on('exit', (code, signal) => {
			this.exited = { code, signal };
			for (const w of this.waiters.splice(0))
				w.reject(new Error(`the server exited (${JSON.stringify(this.exited)}) ` +
				    `before ${w.what}; stderr: ${this.err}`));
			resolve(this.exited);
		}));
	}

	static async start(args, server) {
		const cmd = await serverCommand(args, server);
		return new Wire(spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'pipe'] }));
	}

	take(bytes) {
		let text;
		let msg;
		try {
			text = utf8.decode(bytes);
		} catch {
			this.bad.push({ line: bytes.toString('latin1'), why: 'not UTF-8' });
			return;
		}
		this.lines.push(text);
		try {
			msg = JSON.parse(text);
		} catch (e) {
			this.bad.push({ line: text, why: `not JSON: ${e.message}` });
			return;
		}
		this.messages.push(msg);
		for (const w of [...this.waiters]) {
			if (w.pred(msg)) {
				this.waiters.splice(this.waiters.indexOf(w), 1);
				w.resolve(msg);
			}
		}
	}

	/* Writes |m| (an object, or a string sent as it is) and a newline. */
	send(m) {
		this.child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
	}

	/* Resolves to the first message, seen or to come, that |pred| accepts. */
	waitFor(pred, what, ms = CALL_TIMEOUT) {
		const seen = this.messages.find(pred);
		if (seen)
			return Promise.resolve(seen);
		if (this.exited)
			return Promise.reject(new Error(`the server exited ` +
			    `(${JSON.stringify(this.exited)}) before ${what}; stderr: ${this.err}`));
		return withTimeout(new Promise((resolve, reject) => {
			this.waiters.push({ pred, resolve, reject, what });
		}), ms, `${what} (server stderr: ${this.err})`);
	}

	/* The response to the request with id |id|. */
	response(id, what = `the answer to id ${JSON.stringify(id)}`) {
		return this.waitFor((m) => m.id === id && m.method === undefined, what);
	}

	/* Sends request |method| with id |id| and resolves to its response. */
	request(id, method, params) {
		this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
		return this.response(id, `${method} (id ${JSON.stringify(id)})`);
	}

	async initialize(capabilities = {}) {
		const r = await this.request('init', 'initialize', { protocolVersion: '2025-11-25',
		    capabilities, clientInfo: { name: 'wire', version: '0' } });
		assert.equal(r.result?.protocolVersion, '2025-11-25', JSON.stringify(r));
		this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
	}

	/* Pings with id |id| and checks the pong. */
	async ping(id) {
		assert.deepEqual(await this.request(id, 'ping'), { jsonrpc: '2.0', id, result: {} });
	}

	/* Closes stdin and resolves to the exit status. */
	async close() {
		this.child.stdin.end();
		return withTimeout(this.exit, CALL_TIMEOUT, 'exit after end of input');
	}

	kill() {
		this.child.kill('SIGKILL');
	}

	/* Asserts that every line written so far was one JSON text in UTF-8. */
	assertAllJson() {
		assert.deepEqual(this.bad, [], 'lines that are not JSON');
	}
}

/*
 * Every method toolcell's servers know or MCP defines, with params that
 * would make each do something if it ran.
 */
function everyMethod(root) {
	const uri = fileUri(path.join(root, 'a.txt'));
	return [
		['initialize', { protocolVersion: '2025-11-25', capabilities: {},
		    clientInfo: { name: 'n', version: '0' } }],
		['ping', {}],
		['tools/list', {}],
		['tools/call', { name: 'read_text_file', arguments: { path: 'a.txt' } }],
		['tools/call', { name: 'hello', arguments: {} }],
		['tools/call', { name: 'sleep_forever', arguments: {} }],
		['resources/list', {}],
		['resources/templates/list', {}],
		['resources/read', { uri }],
		['resources/subscribe', { uri }],
		['resources/unsubscribe', { uri }],
		['prompts/list', {}],
		['prompts/get', { name: 'p' }],
		['completion/complete', { ref: { type: 'ref/resource', uri },
		    argument: { name: 'a', value: 'b' } }],
		['logging/setLevel', { level: 'debug' }],
		['tasks/list', {}],
		['tasks/get', { taskId: 't' }],
		['roots/list', {}],
		['sampling/createMessage', {}],
		['elicitation/create', {}],
		['server/discover', {}],
		['no/such', {}],
		['notifications/initialized', undefined],
		['notifications/roots/list_changed', undefined],
		['notifications/cancelled', { requestId: 'none' }],
		['notifications/progress', { progressToken: 1, progress: 1 }],
	];
}

/* Sends every method as a notification (no id). */
function notifyAll(w, root) {
	for (const [method, params] of everyMethod(root))
		w.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
}

/* Asserts that the server wrote nothing but answers to |ids| and its own
 * requests and notifications. */
function assertOnlyAnswers(w, ids) {
	const stray = w.messages.filter((m) => m.method === undefined && !ids.includes(m.id));
	assert.deepEqual(stray, [], 'answers to notifications');
}

describe('every method sent as a notification', () => {
	let tree;
	let scratch;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n' });
		scratch = await makeScratch('wire');
	});

	after(async () => {
		await tree?.cleanup();
		await scratch?.cleanup();
	});

	test('toolcell-fs: before and after initialize, then the issue\'s sequence', async () => {
		const logDir = await scratch.ownedDir();
		const log = path.join(logDir, 'fs.log');
		const pol = await scratch.policy([`allow read ${tree.root}`, `audit ${log}`]);
		const w = await Wire.start(['--policy', pol]);
		try {
			notifyAll(w, tree.root);
			await w.ping('before');
			await w.initialize();
			notifyAll(w, tree.root);
			await w.ping('after');
			// The sequence that crashed the server: a resources/read
			// notification, then any request that looks up calls.
			w.send({ jsonrpc: '2.0', method: 'resources/read',
			    params: { uri: fileUri(tree.p('a.txt')) } });
			const r = await w.request('call', 'tools/call',
			    { name: 'read_text_file', arguments: { path: 'a.txt' } });
			assert.equal(r.result?.structuredContent?.content, 'alpha\n', JSON.stringify(r));
			await w.ping('last');
			assertOnlyAnswers(w, ['init', 'before', 'after', 'call', 'last']);
			const ex = await w.close();
			assert.deepEqual(ex, { code: 0, signal: null }, w.err);
			w.assertAllJson();
			// Nothing ran for a notification: one call in the log, the
			// request's.
			const calls = (await logRecords(log)).filter((x) => x.event === 'call');
			assert.deepEqual(calls.map((x) => x.tool), ['read_text_file']);
		} finally {
			w.kill();
		}
	});

	test('toolcell-fs: while a call waits for the client\'s roots', async () => {
		const w = await Wire.start([tree.root]);
		try {
			await w.initialize({ roots: {} });
			// The server asks for the roots; until they are answered,
			// a call is held, in progress.
			await w.waitFor((m) => m.method === 'roots/list', 'roots/list');
			w.send({ jsonrpc: '2.0', id: 'held', method: 'tools/call',
			    params: { name: 'read_text_file', arguments: { path: 'a.txt' } } });
			notifyAll(w, tree.root);
			await w.ping('during');
			assert.equal(w.messages.find((m) => m.id === 'held'), undefined,
			    'the held call was answered before the roots');
			// roots/list_changed asked again: answer the last request.
			const asks = w.messages.filter((m) => m.method === 'roots/list');
			w.send({ jsonrpc: '2.0', id: asks.at(-1).id,
			    result: { roots: [{ uri: fileUri(tree.root) }] } });
			const r = await w.response('held');
			assert.equal(r.result?.structuredContent?.content, 'alpha\n', JSON.stringify(r));
			await w.ping('after');
			assertOnlyAnswers(w, ['init', 'held', 'during', 'after']);
			assert.deepEqual(await w.close(), { code: 0, signal: null }, w.err);
			w.assertAllJson();
		} finally {
			w.kill();
		}
	});

	test('toolcell-hostile: while a call runs', async () => {
		const w = await Wire.start([tree.root], HOSTILE);
		try {
			await w.initialize();
			w.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call',
			    params: { name: 'sleep_forever', arguments: {} } });
			// A call answered after it: the slow one is in flight.
			const h = await w.request('hello', 'tools/call', { name: 'hello', arguments: {} });
			assert.notEqual(h.result?.isError, true, JSON.stringify(h));
			notifyAll(w, tree.root);
			await w.ping('during');
			w.send({ jsonrpc: '2.0', method: 'notifications/cancelled',
			    params: { requestId: 'slow' } });
			const h2 = await w.request('hello2', 'tools/call', { name: 'hello', arguments: {} });
			assert.notEqual(h2.result?.isError, true, JSON.stringify(h2));
			await w.ping('after');
			assertOnlyAnswers(w, ['init', 'hello', 'during', 'hello2', 'after']);
			assert.deepEqual(await w.close(), { code: 0, signal: null }, w.err);
			w.assertAllJson();
		} finally {
			w.kill();
		}
	});
});
