// multihost.test.mjs: several hosts on one policy.  Claude Desktop,
// Cursor and a few Claude Code sessions each start their own toolcell-fs
// from the same configuration, so several servers write one audit log at
// once.  Here three real servers, each driven by the official client,
// write one log: taking turns, then all at once under load with the log
// rotating, and toolcell-audit verifies the one chain through all of
// their records and says which server wrote which.
//
// With TOOLCELL_AS=nobody the servers run as nobody: the directories the
// logs are written to, and the key files, belong to it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	BUILD, call, logLines, makeScratch, makeTree, runServer, serverIds, startServer,
} from './lib.mjs';

const AUDIT = path.join(BUILD, 'toolcell-audit');
const HOSTS = [
	{ name: 'claude-ai', version: '0.14.10' },
	{ name: 'cursor-vscode', version: '1.0.0' },
	{ name: 'claude-code', version: '2.0.1' },
];
const ROUNDS = 5;		/* calls each server makes in turn */
const LOAD = 80;		/* calls each server makes at once */
const BATCH = 8;		/* of which so many are in flight together */

let tree;
const base = await makeScratch('multihost');
const { policy, ownedDir } = base;

/* Runs toolcell-audit |args| as the server's user, who owns the logs. */
function audit(args) {
	return runServer(args, AUDIT);
}

/* Starts one server per host with |policyFile|; returns them in order. */
async function startAll(policyFile) {
	const srvs = [];
	try {
		for (const h of HOSTS)
			srvs.push(await startServer(['--policy', policyFile], { clientInfo: h }));
	} catch (e) {
		await Promise.all(srvs.map((s) => s.close()));
		throw e;
	}
	return srvs;
}

/* Closes every server; each must exit 0. */
async function closeAll(srvs) {
	const exits = await Promise.all(srvs.map((s) => s.close()));
	for (const [i, e] of exits.entries())
		assert.deepEqual({ code: e.code, signal: e.signal }, { code: 0, signal: null },
		    `server ${i} (${HOSTS[i].name}): ${srvs[i].stderr()}`);
}

/* The log |log| and its rotated files, oldest first, as verify takes them. */
async function logFiles(log) {
	const base = path.basename(log);
	const rotated = (await fsp.readdir(path.dirname(log)))
	    .filter((n) => n.startsWith(`${base}.`) && /^\d+$/.test(n.slice(base.length + 1)))
	    .map((n) => Number(n.slice(base.length + 1)))
	    .sort((a, b) => b - a);
	return [...rotated.map((n) => `${log}.${n}`), log];
}

/* Every record of |files|, in order, each {text, rec}. */
async function allLines(files) {
	const out = [];
	for (const f of files)
		out.push(...await logLines(f));
	return out;
}

/*
 * Checks verify's verdict over |files|: intact, |total| records from seq
 * 1, and for each server (in the order of their first record) its pid,
 * its start id, its count of records, its start and its stop.
 */
function checkVerdict(r, files, total, servers, chain = 'SHA-256') {
	assert.equal(r.stderr, '');
	const lines = [
		`intact: ${total} records (seq 1 to ${total}) in ${files.length} file`
		    + `${files.length === 1 ? '' : 's'}, ${chain} chain`,
		`written by ${servers.length} servers:`,
		...servers.map((s) => `  pid ${s.pid} start ${s.start}: ${s.records} records `
		    + `(seq ${s.first} to ${s.last}), its start, its stop`),
	];
	assert.equal(r.stdout, lines.join('\n') + '\n');
	assert.equal(r.status, 0);
}

/*
 * The servers as the records of |lines| show them, in the order of their
 * first record: {pid, start, records, first, last}.
 */
function writersOf(lines) {
	const by = new Map();
	for (const { rec } of lines) {
		const k = `${rec.writer.pid} ${rec.writer.start}`;
		if (!by.has(k))
			by.set(k, { pid: rec.writer.pid, start: rec.writer.start, records: 0, first: rec.seq });
		const w = by.get(k);
		w.records++;
		w.last = rec.seq;
	}
	return [...by.values()];
}

before(async () => {
	const spec = { 'big.txt': 'b'.repeat(4000) + '\n' };
	for (let i = 0; i < HOSTS.length; i++)
		for (let r = 0; r < ROUNDS; r++)
			spec[`turn-${i}-${r}.txt`] = `host ${i} round ${r}\n`;
	tree = await makeTree(spec);
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

describe('three servers, one audit log', () => {
	test('taking turns: one chain, each record naming the server that wrote it', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'fs-audit.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const srvs = await startAll(p);
		try {
			for (let r = 0; r < ROUNDS; r++) {
				for (const [i, s] of srvs.entries()) {
					const res = await call(s, 'read_text_file', { path: `turn-${i}-${r}.txt` });
					assert.equal(res.structuredContent.content, `host ${i} round ${r}\n`);
				}
			}
		} finally {
			await closeAll(srvs);
		}
		const lines = await logLines(log);
		const pids = srvs.map((s) => s.pid);
		// Every record names one of the three servers; each server's first
		// record is its start, with its own pid, and its last its stop.
		for (const { rec } of lines)
			assert.ok(pids.includes(rec.writer.pid), JSON.stringify(rec));
		const writers = writersOf(lines);
		assert.deepEqual(writers.map((w) => w.pid), pids);
		assert.equal(new Set(writers.map((w) => w.start)).size, 3);
		for (const w of writers) {
			const own = lines.filter(({ rec }) => rec.writer.pid === w.pid).map(({ rec }) => rec);
			assert.equal(own[0].event, 'start');
			assert.equal(own[0].pid, w.pid);
			assert.equal(own.at(-1).event, 'stop');
			// start, client, a call and a result per round, stop
			assert.equal(own.length, 3 + 2 * ROUNDS);
		}
		// The calls are in the log in the order they were made: the three
		// servers' records alternate within the one chain.
		const calls = lines.filter(({ rec }) => rec.event === 'call')
		    .map(({ rec }) => [rec.writer.pid, rec.args.path]);
		const want = [];
		for (let r = 0; r < ROUNDS; r++)
			for (let i = 0; i < HOSTS.length; i++)
				want.push([pids[i], `turn-${i}-${r}.txt`]);
		assert.deepEqual(calls, want);

		checkVerdict(await audit(['verify', log]), [log], lines.length, writers);
		const json = JSON.parse((await audit(['verify', '--json', log])).stdout);
		assert.deepEqual(json.writers.map((w) => [w.pid, w.start, w.records, w.start_record,
		    w.stop_record]), writers.map((w) => [w.pid, w.start, w.records, true, true]));

		// tail names each record's server; the last three are the stops,
		// in the order the servers stopped.
		const t = await audit(['tail', '-n', '3', log]);
		assert.equal(t.status, 0);
		const tl = t.stdout.split('\n').slice(0, -1);
		assert.deepEqual(tl.map((l) => l.replace(/^\S+ #\d+ /, '')).sort(),
		    pids.map((pid) => `[${pid}] stop eof ${ROUNDS} calls`).sort());
		// summary counts each server's records and calls.
		const sum = JSON.parse((await audit(['summary', '--json', log])).stdout);
		assert.deepEqual(sum.servers.map((s) => [s.pid, s.start, s.records, s.calls]),
		    writers.map((w) => [w.pid, w.start, w.records, ROUNDS]));
	});

	test('all at once under load, the log rotating: nothing lost, one chain across the files',
	    async () => {
		const d = await ownedDir();
		const log = path.join(d, 'fs-audit.jsonl');
		// Each call's two records hold its long path twice: about 1.5K a
		// call, so the log rotates every 40-odd calls of the 240.
		const long = `${'./'.repeat(300)}big.txt`;
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`,
		    'audit-rotate 64K']);
		const srvs = await startAll(p);
		try {
			await Promise.all(srvs.map(async (s) => {
				for (let b = 0; b < LOAD; b += BATCH) {
					const rs = await Promise.all(Array.from({ length: BATCH },
					    () => call(s, 'read_text_file', { path: long })));
					for (const r of rs)
						assert.equal(r.structuredContent.content.length, 4001);
				}
			}));
		} finally {
			await closeAll(srvs);
		}
		const files = await logFiles(log);
		assert.ok(files.length >= 3, `rotated: ${files.join(' ')}`);
		const lines = await allLines(files);
		// Nothing lost, nothing twice: every server's start, client, 2
		// records per call and stop, seq 1 to the end without a gap.
		assert.deepEqual(lines.map(({ rec }) => rec.seq),
		    Array.from({ length: lines.length }, (_, i) => i + 1));
		const writers = writersOf(lines);
		assert.deepEqual(writers.map((w) => w.pid).sort(), srvs.map((s) => s.pid).sort());
		for (const w of writers)
			assert.equal(w.records, 3 + 2 * LOAD, `server ${w.pid}`);
		assert.equal(lines.length, 3 * (3 + 2 * LOAD));
		// Each server's own records keep their order: its calls numbered
		// 1 to LOAD, each result after its call.
		for (const w of writers) {
			const own = lines.map(({ rec }) => rec).filter((r) => r.writer.pid === w.pid);
			const callNos = own.filter((r) => r.event === 'call').map((r) => r.call);
			assert.deepEqual(callNos, Array.from({ length: LOAD }, (_, i) => i + 1));
			const seen = new Set();
			for (const r of own) {
				if (r.event === 'call')
					seen.add(r.call);
				if (r.event === 'result')
					assert.ok(seen.has(r.call), `result ${r.call} before its call`);
			}
		}
		// The records of the three servers are mixed: some record follows
		// one of another server (taking turns above proves the order).
		assert.ok(lines.some(({ rec }, i) => i > 0
		    && rec.writer.pid !== lines[i - 1].rec.writer.pid));
		checkVerdict(await audit(['verify', ...files]), files, lines.length, writers);
		const none = (await fsp.readdir(d)).filter((n) => n.endsWith('.new'));
		assert.deepEqual(none, []);
	});

	test('with a key: the servers sharing it write one HMAC chain; another key is refused',
	    async () => {
		const d = await ownedDir();
		const log = path.join(d, 'fs-audit.jsonl');
		const { uid, gid } = serverIds();
		const key = path.join(d, 'audit.key');
		const other = path.join(d, 'other.key');
		for (const k of [key, other]) {
			await fsp.writeFile(k, randomBytes(32).toString('hex'), { mode: 0o600 });
			await fsp.chown(k, uid, gid);
		}
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`, `audit-key ${key}`]);
		const srvs = await startAll(p);
		try {
			const r = await runServer(['--policy', await policy([`allow read ${tree.root}`,
			    `audit ${log}`, `audit-key ${other}`])]);
			assert.equal(r.status, 1);
			assert.match(r.stderr, new RegExp(`^toolcell-fs: error: audit log '${log}': its `
			    + 'last record \\(seq \\d+\\) does not match its MAC with this key \\(altered, '
			    + 'or another key\\); run \'toolcell-audit verify --key KEY '));
			await Promise.all(srvs.map((s, i) => call(s, 'read_text_file',
			    { path: `turn-${i}-0.txt` })));
		} finally {
			await closeAll(srvs);
		}
		const lines = await logLines(log);
		assert.ok(lines.every(({ rec }) => typeof rec.hmac === 'string'));
		checkVerdict(await audit(['verify', '--key', key, log]), [log], lines.length,
		    writersOf(lines), 'HMAC-SHA-256');
		const wrong = await audit(['verify', '--key', other, log]);
		assert.equal(wrong.status, 1);
	});
});
