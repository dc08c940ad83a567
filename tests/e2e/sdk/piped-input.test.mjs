// piped-input.test.mjs: a client that writes its requests to a pipe and
// closes it, as `printf ... | toolcell-fs` does, gets an answer for every
// call before the server exits.  A call waiting for consent when the input
// closes can no longer be answered by anyone (an elicitation's answer would
// come on that input; a hook's is moot once the client has gone): it is
// denied, and its answer and its audit record say that the input closed,
// not that the client cancelled it.
//
// With TOOLCELL_AS=nobody the server, and so its hooks, run as nobody: the
// directories the hooks and the audit log write to belong to it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	CALL_TIMEOUT, logRecords, makeScratch, makeTree, serverCommand, until, withTimeout,
} from './lib.mjs';

const WHY = 'the input closed while consent was asked, which counts as no';
const RULE = 'consent read_text_file (line 2)';

let tree;
const base = await makeScratch('piped');
const { policy, ownedDir } = base;

/* Writes the shell script |body| as an executable hook; returns its path. */
async function hook(body) {
	const p = base.unique('hook', '.sh');
	await fsp.writeFile(p, `#!/bin/sh\n${body}\n`);
	await fsp.chmod(p, 0o755);
	return p;
}

/* Returns a ready() for piped(): true once the hook wrote "asked" in
 * |dir|. */
function asked(dir) {
	return async () => {
		try {
			return (await fsp.readFile(path.join(dir, 'asked'), 'utf8')) === 'asked\n';
		} catch {
			return false;
		}
	};
}

/* The requests of a client that declares |capabilities| and calls
 * read_text_file on a.txt as request 2. */
function session(capabilities = {}) {
	return [
		{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
			protocolVersion: '2025-11-25', capabilities,
			clientInfo: { name: 'printf', version: '1' } } },
		{ jsonrpc: '2.0', method: 'notifications/initialized' },
		{ jsonrpc: '2.0', id: 2, method: 'tools/call',
			params: { name: 'read_text_file', arguments: { path: 'a.txt' } } },
	];
}

/*
 * Starts toolcell-fs with |args|, writes |requests| on its stdin, waits
 * for |ready| (given the messages so far) if given, then closes its stdin
 * (or, with |signal|, sends it that signal, and closes its stdin only once
 * it has exited) and collects everything until it exits: {messages,
 * stderr, code, signal}.
 */
async function piped(args, requests, ready, signal = null) {
	const cmd = await serverCommand(args);
	const child = spawn(cmd.command, cmd.args, { stdio: ['pipe', 'pipe', 'pipe'] });
	let out = '';
	let err = '';
	child.stdout.setEncoding('utf8');
	child.stderr.setEncoding('utf8');
	child.stdout.on('data', (s) => { out += s; });
	child.stderr.on('data', (s) => { err += s; });
	const closed = new Promise((resolve) => {
		child.on('close', (code, signal) => resolve({ code, signal }));
	});
	const messages = () => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
	for (const r of requests)
		child.stdin.write(`${JSON.stringify(r)}\n`);
	try {
		if (ready)
			await until(() => ready(messages()), 5000, 'the server to ask for consent');
	} finally {
		if (signal)
			child.kill(signal);
		else
			child.stdin.end();
	}
	const exit = await withTimeout(closed, CALL_TIMEOUT, 'the server to exit');
	child.stdin.destroy();
	return { messages: messages(), stderr: err, code: exit.code, signal: exit.signal };
}

/* Checks that |r| answers request 2 with the denial, and the log |log|
 * records it as such, asked by |means|; |stop| says how the server
 * stopped. */
async function checkDenied(r, log, means, stop = { answer: 'input-closed', why: WHY,
    reason: 'eof' }) {
	assert.deepEqual({ code: r.code, signal: r.signal }, { code: 0, signal: null }, r.stderr);
	const answer = r.messages.find((m) => m.id === 2);
	assert.ok(answer, `no answer to the call: ${JSON.stringify(r.messages)}`);
	assert.equal(answer.result.isError, true);
	assert.deepEqual(answer.result.content, [{ type: 'text', text: `The call was not run: `
	    + `${stop.why}. (Policy rule '${RULE}' asks a person before this call.)` }]);
	const recs = await logRecords(log);
	const c = recs.filter((x) => x.event === 'call');
	assert.equal(c.length, 1);
	assert.equal(c[0].decision, 'denied');
	assert.equal(c[0].by, 'consent');
	assert.equal(c[0].rule, RULE);
	assert.deepEqual(c[0].consent, { means, answer: stop.answer });
	assert.equal(c[0].reason, stop.why);
	assert.ok(!recs.some((x) => x.event === 'result'), 'the call did not run');
	assert.deepEqual([recs.at(-1).event, recs.at(-1).reason], ['stop', stop.reason]);
}

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n' });
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

describe('a call waiting for consent when the input closes', () => {
	test('asked by a hook: denied, saying the input closed, before the server exits',
	    async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const h = await hook(`echo asked > "${out}/asked"\nsleep 60\nexit 0`);
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`, `audit ${log}`]);
		const r = await piped(['--policy', p], session(), asked(out));
		await checkDenied(r, log, 'hook');
	});

	test('asked by elicitation: denied, saying the input closed, before the server exits',
	    async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `audit ${log}`]);
		const r = await piped(['--policy', p], session({ elicitation: {} }),
		    (msgs) => msgs.some((m) => m.method === 'elicitation/create'));
		await checkDenied(r, log, 'elicitation');
	});

	test('the whole session written at once, then closed: the same answer', async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const h = await hook('sleep 60\nexit 0');
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`, `audit ${log}`]);
		await checkDenied(await piped(['--policy', p], session()), log, 'hook');
	});

	test('the server stopped by a signal while it asks: denied, saying so, before it exits',
	    async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const h = await hook(`echo asked > "${out}/asked"\nsleep 60\nexit 0`);
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`, `audit ${log}`]);
		const r = await piped(['--policy', p], session(), asked(out), 'SIGTERM');
		await checkDenied(r, log, 'hook', { answer: 'server-stopped', reason: 'signal',
		    why: 'the server stopped while consent was asked, which counts as no' });
	});
});
