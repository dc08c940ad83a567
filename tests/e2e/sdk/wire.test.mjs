// wire.test.mjs: what the servers do with JSON-RPC lines that no SDK would
// send, written byte for byte to their stdin: every method sent as a
// notification (before initialize, after it, while calls are in flight),
// and the answer a server must still give after each.
//
// Every line a server writes must be one JSON text in valid UTF-8, whatever
// it was sent; Wire checks each line as it arrives.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	BUILD, CALL_TIMEOUT, fileUri, logRecords, makeScratch, makeTree, serverCommand, sleep,
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

	/* Writes |m| (an object, or a string or Buffer sent as it is) and a
	 * newline. */
	send(m) {
		if (Buffer.isBuffer(m))
			this.child.stdin.write(Buffer.concat([m, Buffer.from('\n')]));
		else
			this.child.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
	}

	/*
	 * Sends |line|, then a ping with id |sync|, and resolves to what the
	 * server wrote in between (the line's answers, if it was answered at
	 * once).
	 */
	async exchange(line, sync) {
		const from = this.messages.length;
		this.send(line);
		this.send({ jsonrpc: '2.0', id: sync, method: 'ping' });
		await this.response(sync, `the ping after ${String(line).slice(0, 200)}`);
		return this.messages.slice(from).filter((m) => m.id !== sync);
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

/*
 * Lines that are not JSON as RFC 8259 has it, though cJSON 1.7 took each:
 * every one is a parse error, under the request's id where that can be
 * read (the top level is one object, its id valid by itself), else without
 * one.  A lone surrogate escape is JSON, but no request: -32600.
 * @ROOT@ is the fixture.  [line, the id answered or null, the code]
 */
const NOT_JSON = [
	// The issue's: a path cut at the U+0000 cJSON made of \u00zz, a
	// method and a tool name that differ after it, a head of "1.".
	['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt\\u00zz/../nothing"}}}', 1],
	['{"jsonrpc":"2.0","id":2,"method":"ping\\u00zzXYZ"}', 2],
	['{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file\\u00qq-anything","arguments":{"path":"a.txt"}}}', 3],
	['{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt","head":1.}}}', 4],
	['8.', null],
	// Ids that would be echoed as they came.
	['{"jsonrpc":"2.0","id":"a\\u00zz","method":"ping"}', null],
	['{"jsonrpc":"2.0","id":"\\u12","method":"ping"}', null],
	['{"jsonrpc":"2.0","id":"\\x41","method":"ping"}', null],
	['{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', null, -32600],
	['{"jsonrpc":"2.0","id":"\\udc00x","method":"ping"}', null, -32600],
	['{"jsonrpc":"2.0","id":01,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":-01,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":+1,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":1.,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":-.5,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":.5,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":1e,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":0x10,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":"a\tb","method":"ping"}', null],
	['{"jsonrpc":"2.0","id":"a\u0001b","method":"ping"}', null],
	['{"jsonrpc":"2.0","id":"a\u001fb","method":"ping"}', null],
	['{"jsonrpc":"2.0","id":\u000b7,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":7\u000c,"method":"ping"}', null],
	['{"jsonrpc":"2.0",\u0001"id":7,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":NaN,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":Infinity,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":7,"method":"ping",}', null],
	['{"jsonrpc":"2.0","id":[1,],"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":7,"method":"ping","x":tru}', 7],
	['{"jsonrpc":"2.0","id":7,"method":"ping","x":"\\U0041"}', 7],
	['{"jsonrpc":"2.0","id":7,"method":"ping","x":"\\ud800\\u0041"}', 7, -32600],
	['-.5', null],
	['+1', null],
	['1.', null],
	['01', null],
];

/* Lines that are JSON but not requests the server can take. */
const INVALID = [
	// U+0000 where the protocol reads a string: the id is not echoed
	// when it holds one.
	['{"jsonrpc":"2.0","id":"a\\u0000b","method":"ping"}', null],
	['{"jsonrpc":"2.0","id":5,"method":"ping\\u0000x"}', 5],
	['{"jsonrpc":"2.0","i\\u0000d":5,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_text_file\\u0000x","arguments":{"path":"a.txt"}}}', 6],
	['{"jsonrpc":"2.0","id":1e5,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":null,"method":"ping"}', null],
	// A member given twice: the first would win here, the last
	// elsewhere.
	['{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":7,"\\u0069d":7,"method":"ping"}', null],
	['{"jsonrpc":"2.0","id":8,"method":"ping","method":"tools/list"}', 8],
	['{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_text_file",' +
	    '"arguments":{"path":"a.txt"}},"params":{"name":"list_allowed_directories"}}', 9],
	['{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"read_text_file",' +
	    '"name":"list_allowed_directories","arguments":{"path":"a.txt"}}}', 10],
	['{"jsonrpc":"2.0","jsonrpc":"1.0","id":11,"method":"ping"}', 11],
];

/* Fragments put in every place of a tools/call: each line must still be
 * answered with JSON. */
const FRAGMENTS = [
	'"\\u00zz"', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"\\ud83d\\ude00"', '"\\u202e"',
	'"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\u007f"', '"\u2028\u2029"', '"é€𝄞"', '1.', '-.5', '1e999',
	'-1e999', '123456789012345678901234567890', '-0', '0', '1e5', '[]', '{}', 'null', 'true',
	'"a\\u0000"', `"${'é'.repeat(60)}"`, `"${'x'.repeat(99)}é"`, `"${'x'.repeat(63)}€"`,
	'{"a":1,"a":2}', '[1,[2,[3,[4]]]]', '"', '"\\', '"\\u"', '[', '{', '}', ']', '',
];

describe('every line written is JSON, whatever was sent', () => {
	let tree;
	let w;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n' });
		w = await Wire.start([tree.root]);
		await w.initialize();
	});

	after(async () => {
		w?.kill();
		await tree?.cleanup();
	});

	test('lines that are not JSON: -32700, the id only if it can be read, nothing run', async () => {
		const wrong = [];
		let n = 0;
		for (const [line, id, code = -32700] of NOT_JSON) {
			const got = await w.exchange(line, `s${++n}`);
			const ok = got.length === 1 && got[0].error?.code === code &&
			    (id === null ? !('id' in got[0]) : got[0].id === id);
			if (!ok)
				wrong.push({ line, got });
		}
		assert.deepEqual(wrong, []);
		w.assertAllJson();
	});

	test('lines that are JSON but not requests: -32600, the id only if clean', async () => {
		const wrong = [];
		let n = 0;
		for (const [line, id] of INVALID) {
			const got = await w.exchange(line, `i${++n}`);
			const ok = got.length === 1 && got[0].error?.code === -32600 &&
			    (id === null ? !('id' in got[0]) : got[0].id === id);
			if (!ok)
				wrong.push({ line, got });
		}
		assert.deepEqual(wrong, []);
		w.assertAllJson();
	});

	test('invalid UTF-8: -32700, under the id if the id itself is valid', async () => {
		for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80]]) {
			let line = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":9,"method":"ping","x":"'),
			    Buffer.from(bytes), Buffer.from('"}')]);
			let got = await w.exchange(line, `u${bytes[0]}`);
			assert.equal(got.length, 1, JSON.stringify(got));
			assert.equal(got[0].error?.code, -32700);
			assert.equal(got[0].id, 9);
			line = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"'),
			    Buffer.from(bytes), Buffer.from('","method":"ping"}')]);
			got = await w.exchange(line, `v${bytes[0]}`);
			assert.equal(got.length, 1, JSON.stringify(got));
			assert.equal(got[0].error?.code, -32700);
			assert.ok(!('id' in got[0]));
		}
		w.assertAllJson();
	});

	test('fragments in every place of a tools/call', async () => {
		let n = 0;
		const places = [
			(f) => `{"jsonrpc":"2.0","id":${f},"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`,
			(f) => `{"jsonrpc":"2.0","id":"f${n}","method":${f},"params":{}}`,
			(f) => `{"jsonrpc":"2.0","id":"f${n}","method":"tools/call","params":{"name":${f},"arguments":{"path":"a.txt"}}}`,
			(f) => `{"jsonrpc":"2.0","id":"f${n}","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":${f}}}}`,
			(f) => `{"jsonrpc":"2.0","id":"f${n}","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt","head":${f}}}}`,
			(f) => `{"jsonrpc":"2.0","id":"f${n}","method":"resources/read","params":{"uri":${f}}}`,
			(f) => `{"jsonrpc":"2.0","id":"f${n}","method":"ping","x":${f}}`,
			(f) => `{"jsonrpc":${f},"id":"f${n}","method":"ping"}`,
			(f) => `[${f}]`,
			(f) => f,
		];
		const pending = [];
		for (const f of FRAGMENTS) {
			for (const place of places) {
				n++;
				const line = place(f);
				await w.exchange(line, `x${n}`);
				// A call may be answered after the ping: wait for it.
				const id = `f${n}`;
				if (line.includes(`"id":"${id}"`) && line.includes('tools/call'))
					pending.push(id);
			}
		}
		// Every call the server took is answered in the end: a ping
		// after the last proves it still serves.
		await w.ping('end');
		for (const id of pending) {
			const seen = w.messages.find((m) => m.id === id);
			if (!seen)
				continue;	// refused before an id was read
			assert.ok(seen.result !== undefined || seen.error !== undefined, JSON.stringify(seen));
		}
		w.assertAllJson();
		assert.deepEqual(await w.close(), { code: 0, signal: null }, w.err);
		w.assertAllJson();
	});
});

describe('ids that differ after a U+0000 do not collide', () => {
	let tree;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n' });
	});

	after(async () => {
		await tree?.cleanup();
	});

	test('a cancel of "k\\u0000x" does not cancel "k"', async () => {
		const w = await Wire.start(['-t', '1000', tree.root], HOSTILE);
		try {
			await w.initialize();
			w.send({ jsonrpc: '2.0', id: 'k', method: 'tools/call',
			    params: { name: 'sleep_forever', arguments: {} } });
			const got = await w.exchange('{"jsonrpc":"2.0","method":"notifications/cancelled",' +
			    '"params":{"requestId":"k\\u0000x"}}', 'sync');
			assert.equal(got.length, 1, JSON.stringify(got));
			assert.equal(got[0].error?.code, -32600);
			// Not cancelled: it runs to its 1 s deadline and is answered.
			const r = await w.response('k');
			assert.equal(r.result?.isError, true, JSON.stringify(r));
			assert.match(r.result.content[0].text, /deadline/);
			assert.deepEqual(await w.close(), { code: 0, signal: null }, w.err);
			w.assertAllJson();
		} finally {
			w.kill();
		}
	});
});

/*
 * The children of process |pid| that are zombies, as [{pid, comm}]: from
 * /proc/PID/task/T/children, or failing that from every /proc/N/stat's
 * parent field.
 */
function zombies(pid) {
	const stat = (n) => {
		try {
			const t = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
			const close = t.lastIndexOf(')');
			const [state, ppid] = t.slice(close + 2).split(' ');
			return { pid: Number(n), comm: t.slice(t.indexOf('(') + 1, close), state,
			    ppid: Number(ppid) };
		} catch {
			return null;	// gone meanwhile
		}
	};
	let kids = null;
	try {
		kids = fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
		    fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8')
			.split(' ').filter((x) => x !== ''));
	} catch {
		kids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n) && stat(n)?.ppid === pid);
	}
	return kids.map(stat).filter((st) => st !== null && st.state === 'Z')
	    .map(({ pid: p, comm }) => ({ pid: p, comm }));
}

/*
 * Waits until server |pid| has no zombie child, polling for at most |ms|;
 * asserts it then has none.  A finished child is reaped as soon as it
 * exits, so any wait is the kernel's, never the next request's.
 */
async function assertNoZombies(pid, what, ms = 5000) {
	const end = Date.now() + ms;
	let z = zombies(pid);
	while (z.length > 0 && Date.now() < end) {
		await sleep(20);
		z = zombies(pid);
	}
	assert.deepEqual(z, [], `${what}: zombie children of the idle server`);
}

describe('finished children are reaped while the server is idle', () => {
	let tree;

	before(async () => {
		tree = await makeTree({ 'a.txt': 'alpha\n' });
	});

	after(async () => {
		await tree?.cleanup();
	});

	// The answer goes out before the child is reaped (it is killed
	// once its result is in); the server must not wait for its next
	// request to reap it.  Many calls, since before the fix each left
	// its child a zombie only when it outran the child's death.
	test('toolcell-fs: after each call', async () => {
		const w = await Wire.start([tree.root]);
		try {
			await w.initialize();
			for (let i = 0; i < 40; i++) {
				const r = await w.request(`c${i}`, 'tools/call',
				    { name: 'read_text_file', arguments: { path: 'a.txt' } });
				assert.equal(r.result?.structuredContent?.content, 'alpha\n', JSON.stringify(r));
				await assertNoZombies(w.child.pid, `after call ${i}`);
			}
			assert.deepEqual(await w.close(), { code: 0, signal: null }, w.err);
		} finally {
			w.kill();
		}
	});
});
