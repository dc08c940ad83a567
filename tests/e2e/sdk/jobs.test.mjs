// jobs.test.mjs: streaming and jobs, through the official MCP client and
// the test-only toolcell-hostile (tests/hostile/stream.c).  A call's
// progress reaches the client as notifications/progress, in order, before
// its result, and a flood of it is bounded; a job is started, its output
// read by offsets (and a read from an offset whose bytes were dropped says
// so; with binary, its exact bytes in base64 too), its input written and
// echoed, stopped; and each time a process tree of the call's (a
// grandchild in a session of its own, one forked twice) is gone
// afterwards: after a stop, a cancellation, the job's lifetime, and the
// server's exit on end of input and on SIGTERM.  Then the same with the
// kernel's namespaces out of reach, where only the keeper holds the tree.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';

import { BUILD, CALL_TIMEOUT, call, makeScratch, runAs, serverIds, startServer, textOf } from './lib.mjs';

const HOSTILE = path.join(BUILD, 'tests', 'toolcell-hostile');

let scratch;

before(async () => {
	scratch = await makeScratch('jobs');
});

after(async () => {
	await scratch?.cleanup();
});

/* A policy of |lines| after a read-only root, owned by the server's user
 * (which a user namespace of its own shows as its root). */
async function policy(lines = []) {
	// /proc: the tools report their grandchildren's pids as we see them.
	const p = await scratch.policy([`allow read ${scratch.root}`, 'allow read /proc', ...lines]);
	const { uid, gid } = serverIds();
	await fsp.chown(p, uid, gid);
	return p;
}

/* Whether process |pid| still exists (a zombie counts as gone). */
function alive(pid) {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
}

/*
 * Fails, saying |msg|, if any of |pids| is alive, with where each one
 * stands (its parent, its session, its pids cgroup: a survivor adopted
 * by init escaped its keeper), and kills those that are still the
 * trees' `sleep` first (a pid can have been reused meanwhile): in a
 * sanitizer build a survivor holds the server's stderr, and the test
 * runner would wait for it.
 */
function assertGone(pids, msg) {
	const left = pids.filter(alive);
	if (left.length === 0)
		return;
	const where = left.map((pid) => {
		let how = '';
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			const cg = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')
			    .find((l) => /(^0::|:pids:)/.test(l)) ?? '?';
			how = ` (state ${f[0]}, parent ${f[1]}, session ${f[3]}, cgroup ${cg})`;
		} catch {
			how = ' (gone while read)';
		}
		try {
			if (readFileSync(`/proc/${pid}/comm`, 'utf8') === 'sleep\n')
				process.kill(pid, 'SIGKILL');
		} catch {
			// Ended meanwhile.
		}
		return `${pid}${how}`;
	});
	assert.fail(`${msg}: ${where.join('; ')}`);
}

/* The pids of |pids| still alive after up to |ms| of waiting. */
async function waitGone(pids, ms) {
	const t0 = Date.now();
	let left = pids.filter(alive);
	while (left.length > 0 && Date.now() - t0 < ms) {
		await sleep(50);
		left = left.filter(alive);
	}
	return left;
}

/* The two pids in "pids A B". */
function pidsIn(text) {
	const m = /pids (\d+) (\d+)/.exec(text);
	assert.ok(m, `no pids in '${text}'`);
	return [Number(m[1]), Number(m[2])];
}

/* Starts a job of job_echo with |args|; returns its id. */
async function startJob(srv, args = {}) {
	const r = await call(srv, 'job_echo', args);
	assert.notEqual(r.isError, true, textOf(r));
	assert.equal(r.structuredContent.state, 'running');
	assert.ok(Number.isInteger(r.structuredContent.job), JSON.stringify(r));
	assert.match(textOf(r), /read_output/);
	return r.structuredContent.job;
}

/* Reads a job's output from |offset|; returns the structuredContent. */
async function readOut(srv, job, offset, extra = {}) {
	const r = await call(srv, 'read_output', { job, offset, ...extra }, { timeout: 40_000 });
	assert.notEqual(r.isError, true, textOf(r));
	return r.structuredContent;
}

/*
 * Reads job |job| from |offset| until its output holds |want|, checking
 * that each read begins where the last one ended.  Returns {text, next}.
 */
async function readUntil(srv, job, offset, want, max_bytes = 65536) {
	let text = '';
	let next = offset;
	for (let i = 0; i < 200 && !text.includes(want); i++) {
		const o = await readOut(srv, job, next, { wait_ms: 5000, max_bytes });
		assert.equal(o.offset, next, 'a read begins where the last ended');
		assert.equal(o.dropped, false);
		assert.equal(o.next_offset, o.offset + Buffer.byteLength(o.output));
		text += o.output;
		next = o.next_offset;
		if (o.state !== 'running')
			break;
	}
	assert.ok(text.includes(want), `'${want}' never came; got '${text}'`);
	return { text, next };
}

/*
 * A name in the scratch root, and a function that makes the file: a tool
 * given it as "go" answers only once it exists, so that its answer cannot
 * overtake the progress we count (the official client drops a progress
 * notification it reads together with the response).
 */
function goFile() {
	const name = path.basename(scratch.unique('go'));
	return [name, () => fsp.writeFile(path.join(scratch.root, name), '')];
}

/*
 * Runs the whole suite against a server started with |opts| (the
 * hostile server, a policy allowing 4 jobs).
 */
function suite(label, startOpts = () => ({})) {
	describe(label, () => {
		let S;

		before(async () => {
			S = await startServer(['--policy', await policy()],
			    { server: HOSTILE, ...startOpts() });
		});

		after(async () => {
			await S?.close().catch(() => {});
		});

		test('progress: each update reaches the client, in order, before the result', async () => {
			const seen = [];
			const [go, release] = goFile();
			const r = await S.client.callTool({ name: 'progress_steps', arguments: { steps: 8, go } },
			    undefined, { timeout: CALL_TIMEOUT, onprogress: (p) => {
				seen.push(p);
				if (seen.length === 8)
					release();
			} });
			assert.notEqual(r.isError, true, textOf(r));
			assert.equal(r.structuredContent.sent, 8);
			assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3, 4, 5, 6, 7, 8]);
			assert.deepEqual(seen.map((p) => p.total), Array(8).fill(8));
			assert.deepEqual(seen.map((p) => p.message), [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `step ${i} of 8`));
			// On the wire: all of them before the response.
			const req = S.sent.findLast((m) => m.method === 'tools/call' && m.params.name === 'progress_steps');
			const token = req.params._meta.progressToken;
			const at = S.messages.findIndex((m) => m.id === req.id && m.result !== undefined);
			const notes = S.messages.map((m, i) => [m, i]).filter(([m]) =>
			    m.method === 'notifications/progress' && m.params.progressToken === token);
			assert.equal(notes.length, 8);
			assert.ok(notes.every(([, i]) => i < at), 'a progress notification after the result');
		});

		test('progress: none for a request that asked for none', async () => {
			const before_ = S.messages.filter((m) => m.method === 'notifications/progress').length;
			const r = await call(S, 'progress_steps', { steps: 5 });
			assert.equal(r.structuredContent.sent, 5);
			assert.equal(S.messages.filter((m) => m.method === 'notifications/progress').length, before_);
		});

		test('progress: a flood is bounded, increasing, and the server serves on', async () => {
			const seen = [];
			const [go, release] = goFile();
			const t0 = Date.now();
			const r = await S.client.callTool({ name: 'progress_steps',
			    arguments: { steps: 200000, quiet: true, go } }, undefined, { timeout: 60_000,
			    onprogress: (p) => {
				seen.push(p.progress);
				if (seen.length === 1)
					release();
			} });
			const ms = Date.now() - t0;
			assert.equal(r.structuredContent.sent, 200000);
			assert.ok(seen.length >= 1, 'no progress at all');
			// 16 at once, then one per 100 ms.
			const bound = 16 + Math.ceil(ms / 100) + 1;
			assert.ok(seen.length <= bound, `${seen.length} notifications in ${ms} ms (at most ${bound})`);
			for (let i = 1; i < seen.length; i++)
				assert.ok(seen[i] > seen[i - 1], `progress went from ${seen[i - 1]} to ${seen[i]}`);
			assert.ok(seen.at(-1) <= 200000);
			assert.deepEqual(S.clientErrors, [], 'the client saw a protocol error');
			const again = await call(S, 'progress_steps', { steps: 1 });
			assert.equal(again.structuredContent.sent, 1);
		});

		test('progress right before the answer: the client never sees them in the wrong order', async () => {
			// A tool that sends its progress and answers at once: the
			// official client mistakes a notification it reads together
			// with the response that follows it for one of an unknown
			// request.  The server holds the answer TC_PROGRESS_QUIET_MS
			// after the last notification, so the two come apart.
			const before_ = S.clientErrors.length;
			let told = 0;
			// 40 calls at least; on a loaded machine, more, until some
			// progress was told apart from its answer (else the test
			// would check nothing), 400 at most.
			for (let i = 0; i < 400 && (i < 40 || told === 0); i++) {
				let n = 0;
				const r = await S.client.callTool({ name: 'progress_steps', arguments: { steps: 3 } },
				    undefined, { timeout: CALL_TIMEOUT, onprogress: () => { n++; } });
				assert.equal(r.structuredContent.sent, 3);
				// Those that come with the result are not told.
				assert.ok(n <= 3, `call ${i}: ${n} notifications`);
				told += n;
			}
			assert.ok(told > 0, 'no notification at all in 400 calls');
			assert.deepEqual(S.clientErrors.slice(before_), [], 'the client saw a protocol error');
		});

		test('a job: output by offsets, input echoed, stopped with its whole tree', async () => {
			const job = await startJob(S, { tree: true, lines: 3 });
			// Small reads first: each picks up where the last ended.
			const a = await readUntil(S, job, 0, 'ready\n', 7);
			const pids = pidsIn(a.text);
			assert.equal(a.text, `pids ${pids[0]} ${pids[1]}\nline 1\nline 2\nline 3\nready\n`);
			assert.deepEqual(pids.filter(alive), pids, 'the tree runs while the job does');

			let w = await call(S, 'write_input', { job, data: 'hello\n' });
			assert.notEqual(w.isError, true, textOf(w));
			assert.deepEqual(w.structuredContent, { job, written: 6, closed: false });
			const b = await readUntil(S, job, a.next, 'echo: hello\n');
			assert.equal(b.text, 'echo: hello\n');
			w = await call(S, 'write_input', { job, data: 'again\n' });
			const c = await readUntil(S, job, b.next, 'echo: again\n');

			// Nothing new: a read with a wait comes back empty, still running.
			const idle = await readOut(S, job, c.next, { wait_ms: 200 });
			assert.equal(idle.output, '');
			assert.equal(idle.state, 'running');
			assert.equal(idle.eof, false);

			const list = await call(S, 'list_jobs', {});
			const mine = list.structuredContent.jobs.find((j) => j.job === job);
			assert.equal(mine.state, 'running');
			assert.equal(mine.tool, 'job_echo');
			assert.equal(mine.end, c.next);
			assert.equal(mine.stderr, 'line 2\n'.length, 'stderr counted apart');

			const s = await call(S, 'stop_job', { job });
			assert.notEqual(s.isError, true, textOf(s));
			assert.equal(s.structuredContent.state, 'stopped');
			// Answered once the job ended: its tree is gone already.
			assertGone(pids, 'a grandchild outlived stop_job');

			const end = await readOut(S, job, c.next);
			assert.equal(end.state, 'stopped');
			assert.equal(end.eof, true);
			const again = await call(S, 'write_input', { job, data: 'x' });
			assert.equal(again.isError, true);
			assert.match(textOf(again), /has ended \(stopped\)/);
		});

		test('a job that ends its input answers, and its result is kept', async () => {
			const job = await startJob(S, {});
			await readUntil(S, job, 0, 'ready\n');
			const w = await call(S, 'write_input', { job, data: 'bye', close: true });
			assert.deepEqual(w.structuredContent, { job, written: 3, closed: true });
			let o;
			for (let next = 0, i = 0; i < 50; i++) {
				o = await readOut(S, job, next, { wait_ms: 5000 });
				next = o.next_offset;
				if (o.eof)
					break;
			}
			assert.equal(o.state, 'exited');
			assert.equal(o.result.structuredContent.echoed, 3);
			assert.match(o.result.content[0].text, /echoed 3 bytes/);
		});

		test('a read from an offset whose bytes were dropped says so', async () => {
			const job = await startJob(S, { flood_kib: 2048 });
			const total = 2048 * 1024 + 'end of flood\n'.length + 'ready\n'.length;
			// Waits until all of it is written: output past total - 1.
			const all = await readOut(S, job, total - 1, { wait_ms: 20000 });
			assert.equal(all.end, total);
			const o = await readOut(S, job, 0, { max_bytes: 16 });
			assert.equal(o.dropped, true);
			assert.equal(o.offset, total - 1024 * 1024, 'the ring keeps the last 1 MiB');
			assert.equal(o.output, 'x'.repeat(16));
			const r = await call(S, 'read_output', { job, offset: 0, max_bytes: 16 });
			assert.match(textOf(r), /bytes from offset 0 were dropped/);
			const tail = await readOut(S, job, total - 19);
			assert.equal(tail.output, 'end of flood\nready\n');
			assert.equal(tail.dropped, false);
			await call(S, 'stop_job', { job });
		});

		test('read_output with binary: the exact bytes, base64, at the text\'s offsets', async () => {
			// What job_echo writes with bytes (tests/hostile/stream.c).
			const bad = Buffer.from('bytes: \x80\x00\xc3(\xc3\xa9\xe2\x82\n\xfe\xff\n', 'latin1');
			const want = Buffer.concat([bad, Buffer.from('ready\n')]);
			const job = await startJob(S, { bytes: true });
			// Reads of 3 bytes, some ending inside a character: each
			// one's bytes are exactly those from offset to next_offset.
			const parts = [];
			let next = 0;
			for (let i = 0; i < 200 && !Buffer.concat(parts).includes('ready\n'); i++) {
				const o = await readOut(S, job, next, { wait_ms: 5000, max_bytes: 3, binary: true });
				assert.equal(o.offset, next, 'a read begins where the last ended');
				assert.equal(typeof o.data_base64, 'string', JSON.stringify(o));
				const b = Buffer.from(o.data_base64, 'base64');
				assert.equal(b.toString('base64'), o.data_base64, 'standard, padded base64');
				assert.equal(o.next_offset - o.offset, b.length, `read ${i}: the bytes from offset to next_offset`);
				assert.ok(b.length <= 3);
				parts.push(b);
				next = o.next_offset;
			}
			assert.deepEqual(Buffer.concat(parts), want);
			// At once: the same bytes, and the text with each
			// ill-formed part (and the NUL) replaced.
			const all = await readOut(S, job, 0, { binary: true });
			assert.deepEqual(Buffer.from(all.data_base64, 'base64'), want);
			assert.equal(all.next_offset, want.length);
			assert.equal(all.output, want.toString('utf8').replace(/\0/g, '\ufffd'));
			assert.ok(all.output.includes('(\u00e9'), 'a whole character stays');
			// Without binary, text only.
			const plain = await readOut(S, job, 0);
			assert.equal(plain.output, all.output);
			assert.equal(plain.data_base64, undefined);
			// An empty read has empty bytes.
			const none = await readOut(S, job, want.length, { binary: true });
			assert.equal(none.data_base64, '');
			await call(S, 'stop_job', { job });
		});

		test('cancelling a running call kills its tree', async () => {
			const ac = new AbortController();
			let pids = null;
			const p = S.client.callTool({ name: 'tree_sleep', arguments: {} }, undefined, {
				timeout: CALL_TIMEOUT, signal: ac.signal,
				onprogress: (pr) => {
					pids = pidsIn(pr.message);
					ac.abort('enough');
				},
			});
			await assert.rejects(p);
			assert.ok(pids, 'the call never said its pids');
			const cancel = S.sent.findLast((m) => m.method === 'notifications/cancelled');
			assert.ok(cancel, 'the client sent no notifications/cancelled');
			assertGone(await waitGone(pids, 5000), 'a grandchild outlived the cancelled call');
			const r = await call(S, 'progress_steps', { steps: 1 });
			assert.equal(r.structuredContent.sent, 1, 'the server serves on');
		});

		test('an unknown job is refused with a clear message', async () => {
			const r = await call(S, 'read_output', { job: 99999 });
			assert.equal(r.isError, true);
			assert.match(textOf(r), /no job 99999: list_jobs lists the jobs/);
		});

		for (const how of ['its input ends', 'SIGTERM']) {
			test(`the server's exit (${how}) kills every job and its tree`, async () => {
				const T = await startServer(['--policy', await policy()],
				    { server: HOSTILE, ...startOpts() });
				const pids = [];
				try {
					for (let i = 0; i < 2; i++) {
						const job = await startJob(T, { tree: true });
						pids.push(...pidsIn((await readUntil(T, job, 0, 'ready\n')).text));
					}
					assert.deepEqual(pids.filter(alive), pids);
				} catch (e) {
					await T.close().catch(() => {});
					throw e;
				}
				let ex;
				if (how === 'SIGTERM') {
					process.kill(T.pid, 'SIGTERM');
					ex = await T.exit;
					await T.close().catch(() => {});
				} else
					ex = await T.close();
				// The server waits for every tree to die before it exits.
				assertGone(pids, `left after the server's exit (${JSON.stringify(ex)})`);
				assert.equal(ex.signal, null, 'the server exited by itself');
			});
		}
	});
}

suite('with namespaces where the kernel allows them');

/*
 * The same, in a user namespace of the test's own where no namespace can
 * be made (max_user_namespaces and max_pid_namespaces 0): a call's
 * children then share the server's PID namespace, and only the keeper
 * holds their trees.
 */
const NO_NS = 'echo 0 > /proc/sys/user/max_pid_namespaces && ' +
    'echo 0 > /proc/sys/user/max_user_namespaces && ' +
    // As another user, run that user's own copy inside, not setpriv.
    'if [ "$1" = setpriv ]; then shift 5; fi; exec "$@"';

function noNsWrap() {
	const as = runAs();
	const unshare = ['unshare', '-U', '-r', 'sh', '-c', NO_NS, 'sh'];
	return as ? ['setpriv', `--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', '--', ...unshare] : unshare;
}

const probe = spawnSync(noNsWrap()[0], [...noNsWrap().slice(1), 'true'], { encoding: 'utf8' });
if (probe.status === 0)
	suite('without namespaces: the keeper alone', () => ({ wrap: noNsWrap() }));
else
	test('without namespaces: the keeper alone', (t) => t.skip(`a user namespace cannot be made here: ${probe.stderr}`));

describe('limits', () => {
	test('one job too many is refused, with a clear message', async () => {
		const L = await startServer(['--policy', await policy(['jobs 2'])], { server: HOSTILE });
		try {
			const a = await startJob(L);
			await startJob(L);
			const r = await call(L, 'job_echo', {});
			assert.equal(r.isError, true);
			assert.match(textOf(r), /2 jobs are running, as many as the policy allows at once; stop one with stop_job/);
			await call(L, 'stop_job', { job: a });
			await startJob(L);
		} finally {
			await L.close().catch(() => {});
		}
	});

	test('a job is killed with its tree at its lifetime', async () => {
		const L = await startServer(['--policy', await policy(['job-lifetime 1s'])], { server: HOSTILE });
		try {
			const job = await startJob(L, { tree: true });
			const { text, next } = await readUntil(L, job, 0, 'ready\n');
			const pids = pidsIn(text);
			const o = await readOut(L, job, next, { wait_ms: 20000 });
			assert.equal(o.state, 'expired');
			assert.match(o.detail, /lifetime of 1 s/);
			assertGone(pids, 'a grandchild outlived the job');
		} finally {
			await L.close().catch(() => {});
		}
	});
});
