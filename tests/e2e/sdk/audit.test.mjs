// audit.test.mjs: the audit log a policy's 'audit' line asks for, written
// by the real server and read back: its records (start, client, call,
// result, stop), their hash or HMAC chain as toolcell-audit verifies it,
// what is redacted, and the log failing closed: a call whose record cannot
// be written does not run.
//
// With TOOLCELL_AS=nobody the server runs as nobody: the directories the
// logs are written to, and the key files, belong to it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import {
	BUILD, CALL_TIMEOUT, call, logLines, logRecords, makeScratch, makeTree, runServer, serverIds,
	sleep, startServer, symlink, textOf, until,
} from './lib.mjs';

const AUDIT = path.join(BUILD, 'toolcell-audit');
const CLIENT = { name: 'toolcell-audit-e2e', version: '7.8.9' };
const ZERO = '0'.repeat(64);
const TAIL = 75;		/* ,"hash":"<64 hex>"} */
const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;	/* 36 after ghp_ */
const SK = `sk-${'Ab1'.repeat(8)}`;			/* a token-shaped name */
const SECRET = `glpat-${'Zy9'.repeat(8)}`;		/* a token in contents */
const NOT_STARTING = 'toolcell-fs: 1 error: not starting\n';	/* a start refused */

let tree;
const base = await makeScratch('audit');	// policies, and directories of logs and keys
const { policy, ownedDir } = base;
let nkeys = 0;

/* A 32-byte key file in |dir|, 0600, owned by the server's user. */
async function keyFile(dir) {
	const k = path.join(dir, `key-${++nkeys}`);
	const bytes = randomBytes(32);
	await fsp.writeFile(k, bytes, { mode: 0o600 });
	const { uid, gid } = serverIds();
	await fsp.chown(k, uid, gid);
	// A trailing newline is not part of the key (toolcell-audit(1)): one
	// random key in 256 ends with one.
	return { file: k, bytes: bytes.at(-1) === 0x0a ? bytes.subarray(0, -1) : bytes };
}

/* makeTree(), owned by the server's user, so that it may write there. */
async function ownTree(spec) {
	const t = await makeTree(spec);
	const { uid, gid } = serverIds();
	spawnSync('chown', ['-hR', `${uid}:${gid}`, t.root]);
	return t;
}

/* Starts toolcell-fs with |args| for the client CLIENT (opts as startServer's). */
function startClient(args, opts = {}) {
	return startServer(args, { ...opts, clientInfo: CLIENT });
}

/* Runs |cmd| |args| to completion; returns {status, stdout, stderr}. */
function run(cmd, args) {
	const r = spawnSync(cmd, args, { input: '', encoding: 'utf8', timeout: 10_000 });
	if (r.error)
		throw r.error;
	return r;
}

/* Runs toolcell-audit |args| as the server's user, who owns logs and keys. */
function audit(args) {
	return runServer(args, AUDIT);
}

/*
 * Checks the chain of |lines| by hand, as toolcell-audit does: seq from
 * |firstSeq| on, prev the digest before (zeros first), the digest over the
 * bytes before it, with |key| an HMAC.  Returns the last digest.
 */
function checkChain(lines, { key = null, firstSeq = 1, prev = ZERO } = {}) {
	const member = key ? 'hmac' : 'hash';
	lines.forEach(({ text, rec }, i) => {
		const keys = Object.keys(rec);
		assert.deepEqual(keys.slice(0, 2), ['seq', 'time'], text);
		assert.deepEqual(keys.slice(-2), ['prev', member], text);
		assert.equal(rec.seq, firstSeq + i, text);
		assert.match(rec.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
		assert.equal(rec.prev, prev, `record ${rec.seq}: prev`);
		const signed = text.slice(0, -TAIL);
		assert.equal(text.slice(-TAIL), `,"${member}":"${rec[member]}"}`);
		const want = key ? createHmac('sha256', key).update(signed).digest('hex')
		    : createHash('sha256').update(signed).digest('hex');
		assert.equal(rec[member], want, `record ${rec.seq}: ${member}`);
		prev = rec[member];
	});
	return prev;
}

before(async () => {
	tree = await makeTree({
		'a.txt': 'alpha\n',
		'big.txt': 'x'.repeat(8191) + '\n',
		[TOKEN]: 'token-named\n',
		'secret/s.txt': 'sierra\n',
		'sub/c.txt': 'charlie\n',
	});
	// Reading this takes seconds: there is no newline in 64 GiB of
	// zeros, so skipping a line reads it all.
	const fh = await fsp.open(tree.p('huge'), 'w');
	await fh.truncate(64 * 2 ** 30);
	await fh.close();
	await fsp.chmod(tree.p('huge'), 0o644);
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

describe('the audit log of a session', () => {
	let log, p, lines, srvPid, sent;

	before(async () => {
		const d = await ownedDir();
		log = path.join(d, 'fs.jsonl');
		p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		srvPid = srv.pid;
		try {
			const a = await call(srv, 'read_text_file', { path: 'a.txt', head: 1 });
			assert.equal(a.structuredContent.content, 'alpha\n');
			const m = await call(srv, 'read_text_file', { path: 'missing.txt' });
			assert.equal(m.isError, true);
			const v = await call(srv, 'read_text_file', { path: 'a.txt', head: 0 });
			assert.equal(v.isError, true);
			const t = await call(srv, 'read_text_file', { path: 'a.txt', max_bytes: 2 });
			assert.equal(t.structuredContent.truncated, true);
			await assert.rejects(call(srv, 'no_such_tool', {}));
		} finally {
			const { code, signal } = await srv.close();
			assert.deepEqual({ code, signal }, { code: 0, signal: null });
		}
		sent = srv.sent;
		lines = await logLines(log);
	});

	test('is a chain of start, client, call and result records, and stop', () => {
		assert.deepEqual(lines.map((l) => [l.rec.event, l.rec.call ?? null]), [
			['start', null],
			['client', null],
			['call', 1], ['result', 1],
			['call', 2], ['result', 2],
			['call', 3],
			['call', 4], ['result', 4],
			['call', 5],		// no_such_tool: recorded, denied
			['stop', null],
		]);
		checkChain(lines);
	});

	test('toolcell-audit verify finds it intact', async () => {
		const r = await audit(['verify', log]);
		assert.equal(r.stderr, '');
		assert.equal(r.stdout, `intact: ${lines.length} records (seq 1 to ${lines.length}) `
		    + 'in 1 file, SHA-256 chain\n');
		assert.equal(r.status, 0);
	});

	test('the log is the server\'s user\'s alone', async () => {
		const st = await fsp.stat(log);
		assert.equal(st.mode & 0o777, 0o600);
		assert.equal(st.uid, serverIds().uid);
	});

	test('start names the server, its process, the kernel\'s layers and the policy', async () => {
		const s = lines[0].rec;
		assert.equal(s.server, 'toolcell-fs');
		assert.match(s.version, /^\d+\.\d+\.\d+/);
		assert.equal(s.pid, srvPid);
		assert.equal(s.uid, serverIds().uid);
		assert.equal(s.kernel, os.release());
		assert.equal(typeof s.landlock_abi, 'number');
		assert.ok(s.landlock_abi >= 1, `landlock_abi ${s.landlock_abi}`);
		assert.equal(s.seccomp, true);
		assert.deepEqual(s.degraded.filter((x) => x !== 'namespaces'), []);
		assert.equal(s.policy, p);
		assert.equal(s.policy_sha256,
		    createHash('sha256').update(await fsp.readFile(p)).digest('hex'));
	});

	test('client names the client, the protocol and what it declared', () => {
		const c = lines[1].rec;
		assert.deepEqual(c.client, CLIENT);
		assert.equal(c.protocol, '2025-11-25');
		assert.equal(c.elicitation, false);
		assert.equal(c.roots, false);
	});

	test('a call that ran: its request, tool, arguments and decision, then its result', () => {
		const req = sent.filter((m) => m.method === 'tools/call');
		const [c, r] = [lines[2].rec, lines[3].rec];
		assert.equal(c.request_id, String(req[0].id));
		assert.equal(c.tool, 'read_text_file');
		assert.deepEqual(c.args, { path: 'a.txt', head: 1 });
		assert.equal(c.decision, 'run');
		assert.equal(c.by, undefined);
		assert.equal(r.tool, 'read_text_file');
		assert.equal(r.outcome, 'ok');
		assert.equal(typeof r.duration_ms, 'number');
		assert.ok(r.duration_ms >= 0 && r.duration_ms < 10_000, String(r.duration_ms));
		assert.ok(r.bytes > 0, `bytes ${r.bytes}`);
		assert.equal(r.truncated, false);
		assert.ok(!lines[3].text.includes('alpha'), 'the result record holds the file');
	});

	test('a tool error is a result with outcome tool-error', () => {
		assert.deepEqual(lines[4].rec.args, { path: 'missing.txt' });
		assert.equal(lines[4].rec.decision, 'run');
		assert.equal(lines[5].rec.outcome, 'tool-error');
	});

	test('invalid arguments: denied by validation, with the reason, and no result', () => {
		const c = lines[6].rec;
		assert.equal(c.decision, 'denied');
		assert.equal(c.by, 'validation');
		assert.deepEqual(c.args, { path: 'a.txt', head: 0 });
		assert.match(c.reason, /^invalid arguments for 'read_text_file': /);
	});

	test('a truncated result says so', () => {
		assert.equal(lines[8].rec.outcome, 'ok');
		assert.equal(lines[8].rec.truncated, true);
	});

	test('stop says why and counts the calls that ran', () => {
		const s = lines.at(-1).rec;
		assert.equal(s.reason, 'eof');
		assert.equal(s.calls, 3);
	});
});

describe('the chain', () => {
	test('with audit-key, records carry an HMAC that only the key verifies', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'keyed.jsonl');
		const key = await keyFile(d);
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`,
		    `audit-key ${key.file}`]);
		const srv = await startClient(['--policy', p]);
		try {
			await call(srv, 'read_text_file', { path: 'a.txt' });
		} finally {
			await srv.close();
		}
		const lines = await logLines(log);
		assert.deepEqual(lines.map((l) => l.rec.event), ['start', 'client', 'call', 'result', 'stop']);
		for (const l of lines)
			assert.equal(l.rec.hash, undefined);
		checkChain(lines, { key: key.bytes });
		let r = await audit(['verify', '--key', key.file, log]);
		assert.equal(r.stdout, 'intact: 5 records (seq 1 to 5) in 1 file, HMAC-SHA-256 chain\n');
		assert.equal(r.status, 0);
		r = await audit(['verify', log]);
		assert.equal(r.status, 2, r.stdout);
		const other = await keyFile(d);
		r = await audit(['verify', '--key', other.file, log]);
		assert.equal(r.status, 1, r.stdout);
		assert.match(r.stdout, /^broken: /);
	});

	test('a second server on the same log continues its chain', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'twice.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const pids = [];
		for (let i = 0; i < 2; i++) {
			const srv = await startClient(['--policy', p]);
			pids.push(srv.pid);
			try {
				await call(srv, 'read_text_file', { path: 'a.txt' });
			} finally {
				await srv.close();
			}
		}
		const lines = await logLines(log);
		assert.deepEqual(lines.map((l) => l.rec.event), ['start', 'client', 'call', 'result',
		    'stop', 'start', 'client', 'call', 'result', 'stop']);
		checkChain(lines);
		// Each record names the server that wrote it.
		assert.deepEqual(lines.map((l) => l.rec.writer.pid), [...Array(5).fill(pids[0]),
		    ...Array(5).fill(pids[1])]);
		const [s0, s1] = [lines[0].rec.writer.start, lines[5].rec.writer.start];
		const r = await audit(['verify', log]);
		assert.equal(r.stdout, 'intact: 10 records (seq 1 to 10) in 1 file, SHA-256 chain\n'
		    + 'written by 2 servers:\n'
		    + `  pid ${pids[0]} start ${s0}: 5 records (seq 1 to 5), its start, its stop\n`
		    + `  pid ${pids[1]} start ${s1}: 5 records (seq 6 to 10), its start, its stop\n`);
		assert.equal(r.status, 0);
	});

	test('a log altered since is refused at start, pointing to toolcell-audit', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'altered.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		await call(srv, 'read_text_file', { path: 'a.txt' });
		await srv.close();
		const text = await fsp.readFile(log, 'utf8');
		await fsp.writeFile(log, text.replace(/"reason":"eof"/, '"reason":"EOF"'));
		const r = await runServer(['--policy', p]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, `toolcell-fs: error: audit log '${log}': its last record `
		    + `(seq 5) does not match its hash (altered); run 'toolcell-audit verify ${log}'\n`
		    + NOT_STARTING);
		const v = await audit(['verify', log]);
		assert.equal(v.status, 1);
	});

	test('a keyed log is refused without its key, and a plain one with a key', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'k.jsonl');
		const key = await keyFile(d);
		const pk = await policy([`allow read ${tree.root}`, `audit ${log}`, `audit-key ${key.file}`]);
		const pn = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		await (await startClient(['--policy', pk])).close();
		let r = await runServer(['--policy', pn]);
		assert.equal(r.status, 1);
		assert.equal(r.stderr, `toolcell-fs: error: audit log '${log}' is keyed (its records `
		    + `carry "hmac"), but no audit key is set\n${NOT_STARTING}`);
		const log2 = path.join(d, 'plain.jsonl');
		const pn2 = await policy([`allow read ${tree.root}`, `audit ${log2}`]);
		const pk2 = await policy([`allow read ${tree.root}`, `audit ${log2}`, `audit-key ${key.file}`]);
		await (await startClient(['--policy', pn2])).close();
		r = await runServer(['--policy', pk2]);
		assert.equal(r.status, 1);
		assert.equal(r.stderr, `toolcell-fs: error: audit log '${log2}' is a plain SHA-256 `
		    + `chain, but an audit key is set: start a new log for a keyed chain\n${NOT_STARTING}`);
	});

	test('a key file others can read is refused at start', async () => {
		const d = await ownedDir();
		const key = await keyFile(d);
		await fsp.chmod(key.file, 0o640);
		const p = await policy([`allow read ${tree.root}`, `audit ${path.join(d, 'l.jsonl')}`,
		    `audit-key ${key.file}`]);
		const r = await runServer(['--policy', p]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, `toolcell-fs: error: audit key '${key.file}': readable or `
		    + `writable by group or others (mode 0640): chmod 600 '${key.file}'\n${NOT_STARTING}`);
	});

	test('audit-rotate: a new file at the size, the chain going on across files', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'rot.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`,
		    'audit-rotate 64K keep 2', 'audit-sync none']);
		const srv = await startClient(['--policy', p]);
		// About 700 bytes of records a call: 64K is passed after ~95.
		const long = `${'sub/../'.repeat(35)}a.txt`;
		try {
			for (let i = 0; i < 240; i++) {
				const r = await call(srv, 'read_text_file', { path: long });
				assert.equal(r.structuredContent.content, 'alpha\n');
			}
		} finally {
			await srv.close();
		}
		const names = (await fsp.readdir(d)).filter((n) => n.startsWith('rot.')).sort();
		assert.deepEqual(names, ['rot.jsonl', 'rot.jsonl.1', 'rot.jsonl.2']);
		for (const n of ['rot.jsonl.1', 'rot.jsonl.2']) {
			const st = await fsp.stat(path.join(d, n));
			assert.ok(st.size >= 64 * 1024 && st.size < 66 * 1024, `${n}: ${st.size} bytes`);
		}
		const l2 = await logLines(`${log}.2`);
		const l1 = await logLines(`${log}.1`);
		const l0 = await logLines(log);
		let prev = checkChain(l2, { firstSeq: l2[0].rec.seq, prev: l2[0].rec.prev });
		prev = checkChain(l1, { firstSeq: l2.at(-1).rec.seq + 1, prev });
		checkChain(l0, { firstSeq: l1.at(-1).rec.seq + 1, prev });
		assert.equal(l0.at(-1).rec.event, 'stop');
		// keep 2: the first file is gone, which verify notes.
		const first = l2[0].rec.seq;
		const last = l0.at(-1).rec.seq;
		assert.ok(first > 1);
		const r = await audit(['verify', `${log}.2`, `${log}.1`, log]);
		assert.equal(r.stderr, '');
		assert.equal(r.stdout, `note: ${log}.2:1: starts at seq ${first}: it continues an `
		    + 'earlier file that was not given, whose records are not checked\n'
		    + `intact: ${last - first + 1} records (seq ${first} to ${last}) in 3 files, `
		    + 'SHA-256 chain\n');
		assert.equal(r.status, 0);
	});

	test('a log another server holds open is shared: the second server joins its chain',
	    async () => {
		const d = await ownedDir();
		const log = path.join(d, 'shared.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const first = await startClient(['--policy', p]);
		let second;
		try {
			second = await startClient(['--policy', p]);
			try {
				await call(first, 'read_text_file', { path: 'a.txt' });
				await call(second, 'read_text_file', { path: 'a.txt' });
				await call(first, 'read_text_file', { path: 'a.txt' });
			} finally {
				await second.close();
			}
			assert.deepEqual(await first.client.ping(), {});
		} finally {
			await first.close();
		}
		const lines = await logLines(log);
		checkChain(lines);
		assert.deepEqual(lines.filter((l) => l.rec.event === 'call')
		    .map((l) => l.rec.writer.pid), [first.pid, second.pid, first.pid]);
		assert.equal((await audit(['verify', log])).status, 0);
	});

	test('a log that cannot be opened, or is a symbolic link, stops the server at start', async () => {
		const d = await ownedDir();
		const missing = path.join(d, 'no', 'such', 'dir', 'l.jsonl');
		let p = await policy([`allow read ${tree.root}`, `audit ${missing}`]);
		let r = await runServer(['--policy', p]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		const dir = path.dirname(missing);
		assert.equal(r.stderr, `toolcell-fs: error: cannot open audit log '${missing}': `
		    + `no directory '${dir}' (make it with: mkdir -p -m 700 '${dir}')\n${NOT_STARTING}`);
		const link = path.join(d, 'link.jsonl');
		await fsp.symlink(path.join(d, 'target.jsonl'), link);
		p = await policy([`allow read ${tree.root}`, `audit ${link}`]);
		r = await runServer(['--policy', p]);
		assert.equal(r.status, 1);
		assert.equal(r.stderr, `toolcell-fs: error: audit log '${link}' is a symbolic link: `
		    + `name the file itself\n${NOT_STARTING}`);
		await assert.rejects(fsp.stat(path.join(d, 'target.jsonl')), { code: 'ENOENT' });
	});
});

describe('what the log says of calls', () => {
	test('a path is kept whatever it looks like, with the file it led to; contents are redacted', async () => {
		// write_file sk-.../../important_deploy.sh: a path shaped like a
		// token must not hide which file the call wrote.
		const w = await ownTree({ [`${SK}/keep.txt`]: 'keep\n' });
		const d = await ownedDir();
		const log = path.join(d, 'redact.jsonl');
		const p = await policy([`allow read ${tree.root}`, `allow write ${w.root}`,
		    `audit ${log}`]);
		const sneaky = `${w.root}/${SK}/../important_deploy.sh`;
		const srv = await startClient(['--policy', p]);
		try {
			const r = await call(srv, 'read_text_file', { path: TOKEN });
			assert.equal(r.structuredContent.content, 'token-named\n');
			const s = await call(srv, 'get_file_info', { path: `sub/../${TOKEN}` });
			assert.notEqual(s.isError, true);
			const wr = await call(srv, 'write_file', { path: sneaky, content: `export KEY=${SECRET}\n` });
			assert.notEqual(wr.isError, true, JSON.stringify(wr.content));
		} finally {
			await srv.close();
		}
		assert.equal(await fsp.readFile(w.p('important_deploy.sh'), 'utf8'), `export KEY=${SECRET}\n`);
		const text = await fsp.readFile(log, 'utf8');
		assert.ok(!text.includes(SECRET), 'the secret written is in the log');
		assert.ok(!text.includes(SECRET.slice(4)), 'part of the secret is in the log');
		const recs = await logRecords(log);
		const calls = recs.filter((r) => r.event === 'call');
		assert.deepEqual(calls.map((c) => [c.tool, c.args, c.paths]), [
			['read_text_file', { path: TOKEN }, [{ root: tree.root, path: TOKEN }]],
			['get_file_info', { path: `sub/../${TOKEN}` }, [{ root: tree.root, path: TOKEN }]],
			['write_file', { path: sneaky, content: '[redacted]' },
			    [{ root: w.root, path: 'important_deploy.sh' }]],
		]);
		// The result records name the same files.
		const results = recs.filter((r) => r.event === 'result');
		assert.deepEqual(results.map((r) => [r.tool, r.paths]), calls.map((c) => [c.tool, c.paths]));
		assert.equal((await audit(['verify', log])).status, 0);
		const t = await audit(['tail', '-n', '2', log]);
		assert.match(t.stdout, new RegExp(` result 3 write_file on ${w.root}/important_deploy\\.sh ok `));
		await w.cleanup();
	});

	test('a long path is kept whole; long contents become their length and SHA-256', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'long.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const long = `${'sub/../'.repeat(40)}a.txt`;
		const pattern = `${'x'.repeat(300)}|alpha`;
		assert.ok(long.length > 256);
		const srv = await startClient(['--policy', p]);
		try {
			const r = await call(srv, 'read_text_file', { path: long });
			assert.equal(r.structuredContent.content, 'alpha\n');
			await call(srv, 'search_file_contents', { path: '.', pattern });
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		assert.deepEqual(calls[0].args, { path: long });
		assert.deepEqual(calls[0].paths, [{ root: tree.root, path: 'a.txt' }]);
		assert.deepEqual(calls[1].args, { path: '.', pattern: { length: pattern.length,
		    sha256: createHash('sha256').update(pattern).digest('hex') } });
		assert.deepEqual(calls[1].paths, [{ root: tree.root, path: '.' }]);
	});

	test('over the tool\'s output limit: the result record says over-limit', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'over.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`, 'limit output 1K']);
		const srv = await startClient(['--policy', p]);
		try {
			const r = await call(srv, 'read_text_file', { path: 'big.txt' });
			assert.equal(r.isError, true);
			assert.equal(textOf(r), 'the result exceeded the 1024-byte limit and was discarded; '
			    + 'ask for less at a time');
		} finally {
			await srv.close();
		}
		const res = (await logRecords(log)).find((r) => r.event === 'result');
		assert.equal(res.outcome, 'over-limit');
		assert.equal(res.tool, 'read_text_file');
	});

	test('past the deadline: the result record says timeout', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'timeout.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`, 'timeout 300ms']);
		const srv = await startClient(['--policy', p]);
		try {
			const t0 = Date.now();
			const r = await call(srv, 'read_text_file', { path: 'huge', offset: 1 });
			assert.equal(r.isError, true, JSON.stringify(r).slice(0, 300));
			assert.equal(textOf(r), 'the call was stopped at its deadline of 300 ms');
			assert.ok(Date.now() - t0 < 5000);
		} finally {
			await srv.close();
		}
		const res = (await logRecords(log)).find((r) => r.event === 'result');
		assert.equal(res.outcome, 'timeout');
		assert.ok(res.duration_ms >= 290 && res.duration_ms < 5000, String(res.duration_ms));
		// Killed, and reaped before the answer: its signal is known.
		assert.equal(res.signal, 'SIGKILL', JSON.stringify(res));
	});

	test('a running call the client cancels: run, then a result that says cancelled', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'cancel.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const ac = new AbortController();
			const pending = call(srv, 'read_text_file', { path: 'huge', offset: 1 },
			    { signal: ac.signal });
			// From its call record on, the call runs (the record is
			// written just before its child starts): 300 ms of it,
			// however long the server took to get there.
			await until(async () => (await logRecords(log).catch(() => []))
			    .some((r) => r.event === 'call' && r.call === 1), 10_000, 'the call record');
			await sleep(300);
			ac.abort('enough');
			await assert.rejects(pending);
			assert.deepEqual(await srv.client.ping(), {});
			const r = await call(srv, 'read_text_file', { path: 'a.txt' });
			assert.equal(r.structuredContent.content, 'alpha\n');
		} finally {
			await srv.close();
		}
		// The killed call is reaped when it is: its result may come
		// after the next call's record.
		const recs = await logRecords(log);
		const of = (n) => recs.filter((r) => r.call === n)
		    .map((r) => [r.event, r.decision ?? r.outcome]);
		assert.deepEqual(of(1), [['call', 'run'], ['result', 'cancelled']]);
		assert.deepEqual(of(2), [['call', 'run'], ['result', 'ok']]);
		const res1 = recs.find((r) => r.event === 'result' && r.call === 1);
		const call1 = recs.find((r) => r.event === 'call' && r.call === 1);
		// The result came at least the 300 ms the test waited after the
		// call's record; its duration counts from the child's start,
		// which comes after that record by however long a loaded
		// machine takes to give the call a child, so it lies within
		// that gap (the records' times and the duration are whole
		// milliseconds: 2 ms of rounding).
		const gap = Date.parse(res1.time) - Date.parse(call1.time);
		assert.ok(gap >= 300, `${gap} ms between the records`);
		assert.ok(res1.duration_ms > 0 && res1.duration_ms <= gap + 2,
		    `${res1.duration_ms} ms of ${gap}`);
		assert.equal(res1.tool, 'read_text_file');
	});

	test('a call cancelled while it waited for a free slot: run, then a result that says cancelled', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'queued.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`, 'timeout 1s']);
		const srv = await startClient(['--policy', p]);
		try {
			// Sixteen calls run at once: these fill every slot.
			const slow = [];
			for (let i = 0; i < 16; i++)
				slow.push(call(srv, 'read_text_file', { path: 'huge', offset: 1 }));
			const ac = new AbortController();
			const queued = call(srv, 'read_text_file', { path: 'a.txt' }, { signal: ac.signal });
			await sleep(200);
			ac.abort('enough');
			await assert.rejects(queued);
			for (const r of await Promise.all(slow))
				assert.equal(textOf(r), 'the call was stopped at its deadline of 1000 ms');
			const r = await call(srv, 'read_text_file', { path: 'a.txt' });
			assert.equal(r.structuredContent.content, 'alpha\n');
		} finally {
			await srv.close();
		}
		const recs = await logRecords(log);
		const of = (n) => recs.filter((r) => r.call === n)
		    .map((r) => [r.event, r.decision ?? r.outcome]);
		assert.deepEqual(of(17), [['call', 'run'], ['result', 'cancelled']]);
		const res = recs.find((r) => r.event === 'result' && r.call === 17);
		assert.equal(res.duration_ms, 0);
		assert.equal(res.detail, 'cancelled by the client before it started');
		assert.equal('exit' in res || 'signal' in res, false, JSON.stringify(res));
		// The slow ones were killed at their deadline.
		for (let n = 1; n <= 16; n++)
			assert.deepEqual(of(n), [['call', 'run'], ['result', 'timeout']]);
		assert.equal(recs.at(-1).event, 'stop');
		assert.equal(recs.at(-1).calls, 18);
	});

	test('a client that declares elicitation and roots: its record says so', async () => {
		const { ElicitRequestSchema, ListRootsRequestSchema } = await import(
		    '@modelcontextprotocol/sdk/types.js');
		const d = await ownedDir();
		const log = path.join(d, 'caps.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p], {
			capabilities: { elicitation: {}, roots: { listChanged: true } },
			handlers: [
				[ElicitRequestSchema, () => ({ action: 'decline' })],
				[ListRootsRequestSchema, () => ({ roots: [{ uri: `file://${tree.p('sub')}` }] })],
			],
		});
		try {
			// The roots are applied before the first call runs.
			const r = await call(srv, 'list_allowed_directories', {});
			assert.deepEqual(r.structuredContent.directories,
			    [{ path: tree.p('sub'), access: 'read-only' }]);
		} finally {
			await srv.close();
		}
		const recs = await logRecords(log);
		const c = recs.find((r) => r.event === 'client');
		assert.equal(c.elicitation, true);
		assert.equal(c.roots, true);
		const roots = recs.find((r) => r.event === 'roots');
		assert.ok(roots, 'no roots record');
		assert.deepEqual(roots.client, [tree.p('sub')]);
		assert.deepEqual(roots.in_force, [{ path: tree.p('sub'), access: 'read-only' }]);
		assert.ok(recs.indexOf(roots) < recs.findIndex((r) => r.event === 'result'),
		    'the roots were recorded after the call that used them had run');
	});

	test('a path a deny rule covers is refused before the call is forked', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'deny.jsonl');
		const p = await policy([`allow read ${tree.root}`, 'deny secret', `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const r = await call(srv, 'read_text_file', { path: 'secret/s.txt' });
			assert.equal(r.isError, true);
			assert.equal(textOf(r), '\'secret/s.txt\': denied by policy rule '
			    + '\'deny secret\' (line 2)');
		} finally {
			await srv.close();
		}
		const recs = await logRecords(log);
		const c = recs.find((r) => r.event === 'call');
		assert.equal(c.decision, 'denied');
		assert.equal(c.by, 'policy');
		assert.equal(c.rule, '\'deny secret\' (line 2)');
		assert.ok(!recs.some((r) => r.event === 'result'), 'a denied call ran');
	});

	test('a symlink to a denied file is refused where it leads, by the server, before a fork', async () => {
		// The child would refuse these too, on what it opened; the
		// server must not leave it to the child.  Its deny check on
		// the resolved path is what keeps a call through a link from
		// being forked and recorded as run.
		const t = await makeTree({
			'.env': 'ENV\n',
			'notes': symlink('.env'),
			'sub/up': symlink('../.env'),
			'.git/hooks/pre-commit': '#!/bin/sh\n',
			'hl': symlink('.git/hooks'),
		});
		const { uid, gid } = serverIds();
		spawnSync('chown', ['-hR', `${uid}:${gid}`, t.root]);
		const d = await ownedDir();
		const log = path.join(d, 'link.jsonl');
		const p = await policy([`allow write ${t.root}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		const want = [
			['read_text_file', { path: 'notes' }, "'deny **/.env' (built in)"],
			['read_text_file', { path: 'sub/up' }, "'deny **/.env' (built in)"],
			['write_file', { path: 'notes', content: 'x\n' }, "'deny **/.env' (built in)"],
			['write_file', { path: 'hl/pre-commit', content: 'x\n' },
			    "'deny write **/.git/hooks' (built in)"],
			['write_file', { path: 'hl/post-checkout', content: 'x\n' },
			    "'deny write **/.git/hooks' (built in)"],
		];
		const answers = [];
		try {
			for (const [tool, args] of want)
				answers.push(await call(srv, tool, args));
		} finally {
			await srv.close();
			await t.cleanup();
		}
		const recs = await logRecords(log);
		const calls = recs.filter((r) => r.event === 'call');
		assert.equal(calls.length, want.length);
		calls.forEach((c, i) => {
			const [tool, args, rule] = want[i];
			assert.deepEqual([c.tool, c.args.path, c.decision, c.by, c.rule],
			    [tool, args.path, 'denied', 'policy', rule], `call ${i + 1}`);
		});
		assert.deepEqual(recs.filter((r) => r.event === 'result'), [], 'a call through a link was forked');
		assert.equal(recs.at(-1).event, 'stop');
		assert.equal(recs.at(-1).calls, 0, 'the stop record counts calls that ran');
		answers.forEach((r, i) => {
			const [tool, args, rule] = want[i];
			assert.equal(r.isError, true, `${tool} ${args.path}`);
			assert.equal(textOf(r), `'${args.path}': denied by policy rule ${rule}`);
		});
	});

	test('a call of a tool the policy hides is recorded as denied, and answered -32602', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'hidden.jsonl');
		const p = await policy([`allow read ${tree.root}`, 'tool get_file_info off',
		    `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		try {
			await assert.rejects(srv.client.callTool({ name: 'get_file_info',
			    arguments: { path: 'a.txt' } }), (e) => e.code === -32602 &&
			    /unknown tool 'get_file_info'/.test(e.message));
		} finally {
			await srv.close();
		}
		const recs = await logRecords(log);
		const c = recs.find((r) => r.event === 'call');
		assert.equal(c.tool, 'get_file_info');
		assert.equal(c.decision, 'denied');
		assert.equal(c.by, 'validation');
		assert.equal(c.reason, 'unknown tool \'get_file_info\'');
		assert.ok(!recs.some((r) => r.event === 'result'), 'a hidden tool ran');
	});

	test('a 4 MiB tool name: answered, and recorded cut, with a marker and its length', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'bigname.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		// U+00E9 takes bytes 100 and 101: a cut after 100 bytes splits it.
		const name = `${'a'.repeat(99)}\u00e9${'b'.repeat(4 * 2 ** 20)}`;
		const srv = await startClient(['--policy', p]);
		try {
			await assert.rejects(srv.client.callTool({ name, arguments: {} }),
			    (e) => e.code === -32602 &&
			    e.message.endsWith(`unknown tool '${'a'.repeat(99)}\u2026'`));
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		assert.equal(calls.length, 1, 'no record of the call');
		const c = calls[0];
		// 4096 bytes: 99 + 2 + 3995, then the marker.
		assert.equal(c.tool, `${'a'.repeat(99)}\u00e9${'b'.repeat(3995)}\u2026`);
		assert.deepEqual(c.cut, { '/tool': Buffer.byteLength(name) });
		assert.equal(c.decision, 'denied');
		assert.equal(c.by, 'validation');
		assert.equal(c.reason, `unknown tool '${'a'.repeat(99)}\u2026'`);
		assert.equal((await audit(['verify', log])).status, 0);
	});

	test('every tools/call leaves one call record, also those that never become calls', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'every.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		/* Sends a raw tools/call with id |id|; resolves to its answer. */
		const send = async (id, params) => {
			await srv.transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params });
			return until(() => srv.messages.find((m) => m.id === id && !('method' in m)),
			    CALL_TIMEOUT, `the answer to ${id}`);
		};
		try {
			let a = await send('no-name', { arguments: { path: 'a.txt' } });
			assert.equal(a.error?.code, -32602, JSON.stringify(a));
			a = await send('number-name', { name: 7, arguments: {} });
			assert.equal(a.error?.code, -32602, JSON.stringify(a));
			a = await send('array-args', { name: 'read_text_file', arguments: ['a.txt'] });
			assert.equal(a.error?.code, -32602, JSON.stringify(a));
			// The same id again while the first is running (reading
			// 64 GiB takes seconds); then the first is cancelled.
			await srv.transport.send({ jsonrpc: '2.0', id: 'busy', method: 'tools/call',
			    params: { name: 'read_text_file', arguments: { path: 'huge', offset: 1 } } });
			a = await send('busy', { name: 'list_directory', arguments: { path: '.' } });
			assert.equal(a.error?.code, -32600, JSON.stringify(a));
			await srv.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled',
			    params: { requestId: 'busy' } });
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		// request_id is the id as sent, in JSON.
		assert.deepEqual(calls.map((c) => [JSON.parse(c.request_id), c.tool, c.decision,
		    c.by ?? null, c.reason ?? null]), [
			['no-name', null, 'denied', 'validation', 'tools/call needs params.name, the tool\'s name'],
			['number-name', null, 'denied', 'validation', 'tools/call needs params.name, the tool\'s name'],
			['array-args', 'read_text_file', 'denied', 'validation',
			    'tools/call arguments must be an object'],
			['busy', 'read_text_file', 'run', null, null],
			['busy', 'list_directory', 'denied', 'validation',
			    'a request with this id is still in progress'],
		]);
		assert.deepEqual(calls[0].args, { path: 'a.txt' });
		assert.deepEqual(calls[2].args, ['a.txt']);
		assert.deepEqual(calls.map((c) => c.call), [1, 2, 3, 4, 5]);
		assert.equal((await audit(['verify', log])).status, 0);
	});

	test('--check shows the log, its chain, sync and rotation', async () => {
		const d = await ownedDir();
		const key = await keyFile(d);
		const p = await policy([`allow read ${tree.root}`, `audit ${d}/l.jsonl`,
		    `audit-key ${key.file}`, 'audit-sync none', 'audit-rotate 1M keep 3']);
		const r = await runServer(['--policy', p, '--check']);
		assert.equal(r.stderr, '');
		assert.equal(r.status, 0);
		assert.ok(r.stdout.includes([
			`audit: ${d}/l.jsonl  (line 2)`,
			'  chain: HMAC-SHA-256, key in',
			`    ${key.file}`,
			'  sync: none (left to the kernel)',
			'  rotate: at 1M, keeping 3 files',
			'',
		].join('\n')), r.stdout);
		const pp = await policy([`allow read ${tree.root}`, 'audit-sync every',
		    'audit-rotate 1K', 'audit-rotate 1M keep 0']);
		const q = await runServer(['--policy', pp, '--check']);
		assert.equal(q.status, 1);
		assert.equal(q.stdout, '');
		assert.equal(q.stderr, [
			`toolcell-fs: error: ${pp}:3: audit-rotate: '1K' is out of range: 64K to 1T`,
			`toolcell-fs: error: ${pp}:4: audit-rotate keep: '0' is out of range: 1 to 10000`,
			`toolcell-fs: error: ${pp}: audit-sync (line 2): no 'audit FILE' line names the log`,
			'toolcell-fs: 3 errors',
			'',
		].join('\n'));
	});
});

describe('the log fails closed', () => {
	const MNT_SIZE = 64 * 1024;

	/* Mounts a tmpfs of 64K for the server's user; returns its path. */
	async function smallFs() {
		const mnt = base.unique('tmpfs');
		await fsp.mkdir(mnt);
		const { uid, gid } = serverIds();
		const r = run('mount', ['-t', 'tmpfs', '-o',
		    `size=${MNT_SIZE},mode=0700,uid=${uid},gid=${gid}`, 'toolcell-e2e', mnt]);
		if (r.status !== 0)
			return { error: `mount -t tmpfs failed: ${r.stderr.trim()}` };
		return { mnt };
	}

	/* Fills the file system of |dir| with |name| until it is full. */
	function fill(dir, name) {
		const fd = fs.openSync(path.join(dir, name), 'w');
		const chunk = Buffer.alloc(4096, 0x61);
		try {
			for (;;) {
				try {
					fs.writeSync(fd, chunk);
				} catch (e) {
					if (e.code !== 'ENOSPC')
						throw e;
					break;
				}
			}
		} finally {
			fs.closeSync(fd);
		}
	}

	test('on a full file system a call is refused, not run unrecorded; it runs again once there is room', async (t) => {
		if (process.getuid() !== 0) {
			t.skip('not root: mounting a small tmpfs needs root');
			return;
		}
		const fsm = await smallFs();
		if (fsm.error) {
			t.skip(fsm.error);
			return;
		}
		const { mnt } = fsm;
		try {
			const log = path.join(mnt, 'audit.jsonl');
			const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
			const srv = await startClient(['--policy', p]);
			const sentIds = [];
			let refused = null;
			try {
				const r0 = await call(srv, 'read_text_file', { path: 'a.txt' });
				assert.equal(r0.structuredContent.content, 'alpha\n');
				fill(mnt, 'filler');
				// The log's last page may still hold a few records.
				for (let i = 0; i < 40 && refused === null; i++) {
					const r = await call(srv, 'read_text_file', { path: 'a.txt' });
					sentIds.push(srv.sent.filter((m) => m.method === 'tools/call').at(-1).id);
					if (r.isError === true)
						refused = { r, id: sentIds.at(-1) };
					else
						assert.equal(r.structuredContent.content, 'alpha\n');
				}
				assert.ok(refused, 'no call was refused on a full file system');
				const text = textOf(refused.r);
				assert.match(text, new RegExp('^The call was not run: its record could not be '
				    + `written to the audit log \\(audit log '${log}': (write failed: No space `
				    + 'left on device|short write \\(\\d+ of \\d+ bytes\\)); the record was '
				    + 'undone\\), and nothing runs unrecorded\\. Tell the user\\.$'));
				assert.ok(!text.includes('alpha'));
				assert.equal(refused.r.structuredContent, undefined);
				// The server goes on serving; calls are refused while full.
				// The same call again: its record is no smaller than the
				// one refused (a smaller one, of another tool, may still
				// fit in the log's last page, which made this flaky).
				assert.deepEqual(await srv.client.ping(), {});
				const again = await call(srv, 'read_text_file', { path: 'a.txt' });
				assert.equal(again.isError, true);
				assert.match(textOf(again), /^The call was not run: its record could not be written/);
				// Room again: calls run again.
				await fsp.rm(path.join(mnt, 'filler'));
				const r2 = await call(srv, 'read_text_file', { path: 'a.txt' });
				assert.equal(r2.isError, undefined, JSON.stringify(r2.content));
				assert.equal(r2.structuredContent.content, 'alpha\n');
			} finally {
				await srv.close();
			}
			// The log is whole: no partial record, no record of the refused call.
			const lines = await logLines(log);
			checkChain(lines);
			const v = await audit(['verify', log]);
			assert.equal(v.status, 0, v.stdout + v.stderr);
			const calls = lines.map((l) => l.rec).filter((r) => r.event === 'call');
			assert.ok(!calls.some((c) => c.request_id === String(refused.id)),
			    'the refused call has a record');
			assert.equal(lines.at(-1).rec.event, 'stop');
			assert.equal(calls.at(-1).decision, 'run');
		} finally {
			const u = run('umount', [mnt]);
			assert.equal(u.status, 0, u.stderr);
		}
	});
});
