// containment.test.mjs: containment proven through a real server.  The
// test-only toolcell-hostile (tests/hostile/) is driven with the official
// MCP client; each of its tools tries one way out of the sandbox with plain
// system calls and reports what happened.  Every case asserts that the
// attempt failed, on the tool's word ("escaped": false, computed from the
// outcome) and, wherever the effect would be visible from here, on the
// test's own observation (the file on disk, the listener, the process
// table); then that the server still answers a benign call.  Controls aim
// the same tools at allowed targets and must see them work, so that a
// detector that cannot say yes proves nothing.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { after, before, describe, test } from 'node:test';

import { BUILD, CALL_TIMEOUT, call, runAs, secretToken, startServer, textOf, transcript, until } from './lib.mjs';

const HOSTILE = path.join(BUILD, 'tests', 'toolcell-hostile');
const EACCES = 13;
const EPERM = 1;
const EMFILE = 24;

/* Skips, or fails when TOOLCELL_MUST_WORK=1 asks for every case. */
function skipOrFail(t, why) {
	if (process.env.TOOLCELL_MUST_WORK === '1')
		assert.fail(`TOOLCELL_MUST_WORK=1, and this case cannot run here: ${why}`);
	t.skip(why);
}

/* The uid the server (and so each call) runs as. */
const serverUid = () => runAs()?.uid ?? process.getuid();

/* A command that runs |argv| as the server's user (or as we are). */
function asServerUser(argv) {
	const as = runAs();
	if (!as)
		return argv;
	return ['setpriv', `--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', '--', ...argv];
}

/* Asserts that |srv| still answers a benign call. */
async function assertServes(srv, what) {
	const h = await call(srv, 'hello', {});
	assert.notEqual(h.isError, true, `${what}: the benign call failed: ${JSON.stringify(h.content)}`);
	assert.equal(h.structuredContent?.ok, true, `${what}: the benign call did not answer`);
}

/* Calls hostile tool |name|, then checks the server still serves. */
async function attempt(srv, name, args = {}, timeout = CALL_TIMEOUT) {
	const r = await call(srv, name, args, { timeout });
	await assertServes(srv, `after ${name}`);
	return r;
}

/* Asserts the tool ran to its end and returns its structuredContent. */
function ran(r, what) {
	assert.notEqual(r.isError, true, `${what}: the tool did not report: ${textOf(r)}`);
	const sc = r.structuredContent;
	assert.equal(typeof sc?.escaped, 'boolean', `${what}: no 'escaped' in ${JSON.stringify(r)}`);
	return sc;
}

/* Asserts the tool ran and did not get out. */
function contained(r, what) {
	const sc = ran(r, what);
	assert.equal(sc.escaped, false, `${what}: ESCAPED: ${sc.detail}`);
	return sc;
}

/* Asserts none of |tokens| appears in anything |srv| sent. */
function assertNoLeak(srv, tokens, what) {
	const all = transcript(srv);
	for (const tok of tokens)
		assert.ok(!all.includes(tok), `${what}: '${tok}' reached the client`);
}

/* Pids of the processes whose comm is |tag|. */
function processesNamed(tag) {
	const found = [];
	for (const d of readdirSync('/proc')) {
		if (!/^\d+$/.test(d))
			continue;
		try {
			if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === tag)
				found.push(Number(d));
		} catch {
			// Gone while we looked.
		}
	}
	return found;
}

/* Waits up to |ms| for |check| to return an empty list; returns the last. */
async function waitEmpty(check, ms) {
	const t0 = Date.now();
	let left = check();
	while (left.length > 0 && Date.now() - t0 < ms) {
		await sleep(100);
		left = check();
	}
	return left;
}

/* A comm name (at most 15 bytes) nothing else on the machine has. */
const tagOf = (what) => `${what}${randomUUID().slice(0, 8)}`.slice(0, 15);

/*
 * The world the tests run in, in a fresh temp dir T:
 *
 *   T/data/      the read-only root: files, symlinks out of every kind,
 *                the race's links, a mount target, a setuid binary
 *   T/datab/     data's prefix twin, holding the secret
 *   T/wdata/     the writable root (another server), with dangling links
 *   T/wdatab/    its prefix twin
 *   T/outside/   the secret, and room for what must not be written there
 *   T/canary     the file the server holds open as fd 7
 *   T/sock/      a pathname unix socket the test listens on
 *   T/mix-rw/, T/mix-ro/   a writable and a read-only root of one server,
 *                made by their own describe()
 *
 * Everything the server must not reach is readable (and, for writes,
 * writable) by the user it runs as, so that only the sandbox stands in the
 * way, not the permissions.
 */
async function makeWorld() {
	const T = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-contain-')));
	const w = {
		T,
		p: (rel) => path.join(T, rel),
		secret: secretToken(),
		fdSecret: secretToken(),
		envSecret: secretToken(),
		control: `TOOLCELL-CONTROL-${randomUUID()}`,
		inside: `TOOLCELL-INSIDE-${randomUUID()}`,
	};
	const mk = async (rel, mode = 0o755) => {
		await fsp.mkdir(w.p(rel), { recursive: true });
		await fsp.chmod(w.p(rel), mode);
	};
	const put = async (rel, content, mode = 0o644) => {
		await fsp.writeFile(w.p(rel), content);
		await fsp.chmod(w.p(rel), mode);
	};
	const ln = (target, rel) => fsp.symlink(target, w.p(rel));

	await fsp.chmod(T, 0o755);
	for (const d of ['data', 'data/sub', 'data/race', 'data/race/idir', 'data/mnt', 'data/bin', 'datab'])
		await mk(d);
	for (const d of ['outside', 'wdata', 'wdatab', 'sock'])
		await mk(d, 0o777);
	await put('outside/secret', w.secret);
	await put('outside/wsecret', w.secret, 0o666);
	await put('outside/movable', w.secret, 0o666);
	await put('datab/secret', w.secret);
	await put('wdatab/secret', w.secret, 0o666);
	await put('canary', w.fdSecret);
	await put('data/control.txt', w.control);
	await put('data/inside.txt', 'inside\n');
	await put('data/sub/inner.txt', 'inner\n');
	await put('data/race/inside.txt', w.inside);
	await put('data/race/idir/secret', w.inside);
	await put('wdata/victim', 'victim\n', 0o666);

	await ln(w.p('outside/secret'), 'data/abs-link');
	await ln('../outside/secret', 'data/rel-link');
	await ln('chain2', 'data/chain1');
	await ln('sub/chain3', 'data/chain2');
	await ln('../../outside/secret', 'data/sub/chain3');
	await ln('../outside', 'data/dir-link');
	await ln('inside.txt', 'data/race/link');
	await ln('idir', 'data/race/dlink');
	await ln('../outside/w-dangling', 'wdata/dangling');
	await ln(w.p('outside/w-dangling-abs'), 'wdata/abs-dangling');
	await ln('../outside/wsecret', 'wdata/to-wsecret');
	await ln(w.p('outside'), 'wdata/out-dir');
	return w;
}

/*
 * Flips symlink |link| between |a| and |b| as fast as it can, in a worker
 * thread, each flip atomic (a new link renamed over the old).  stop()
 * returns the number of flips.
 */
function startFlipper(link, a, b) {
	const shared = new Int32Array(new SharedArrayBuffer(8));
	const worker = new Worker(`
		const { workerData } = require('node:worker_threads');
		const fs = require('node:fs');
		const { link, a, b, shared } = workerData;
		const tmp = link + '.flip';
		let n = 0;
		while (Atomics.load(shared, 0) === 0) {
			try { fs.unlinkSync(tmp); } catch {}
			fs.symlinkSync(n % 2 === 0 ? b : a, tmp);
			fs.renameSync(tmp, link);
			n++;
			Atomics.store(shared, 1, n);
		}
		fs.symlinkSync(a, tmp);
		fs.renameSync(tmp, link);
	`, { eval: true, workerData: { link, a, b, shared } });
	const exited = new Promise((resolve, reject) => {
		worker.once('exit', resolve);
		worker.once('error', reject);
	});
	return {
		/* Resolves once the link has flipped: a worker takes tens of
		 * milliseconds to start, and a quick reader could be done by
		 * then. */
		started: () => until(() => Atomics.load(shared, 1) >= 10, 10_000, 'the flipper'),
		stop: async () => {
			Atomics.store(shared, 0, 1);
			await exited;
			return Atomics.load(shared, 1);
		},
	};
}

let W;			// the world
let A;			// read-only server: roots T/data and /proc, fd 7, env canary
let B;			// writable server: root T/wdata

before(async () => {
	W = await makeWorld();
	A = await startServer([W.p('data'), '/proc'], {
		server: HOSTILE,
		env: { TOOLCELL_CANARY: W.envSecret },
		wrap: ['sh', '-c', 'exec 7<"$0" && exec "$@"', W.p('canary')],
	});
	B = await startServer(['-w', W.p('wdata')], { server: HOSTILE });
});

after(async () => {
	// A server a failed case killed must not keep the tree behind.
	await A?.close().catch(() => {});
	await B?.close().catch(() => {});
	if (W)
		await fsp.rm(W.T, { recursive: true, force: true });
});

describe('reading outside the roots', () => {
	test('control: the detector sees a secret that is readable', async () => {
		const sc = ran(await attempt(A, 'read_path', { path: W.p('data/control.txt'), secret: W.control }),
		    'control');
		assert.equal(sc.escaped, true, `the control file was not read: ${sc.detail}`);
		assert.ok(sc.bytes > 0);
	});

	const cases = [
		['.. in an absolute path', () => ({ path: W.p('data/../outside/secret') })],
		['.. from the root\'s directory fd', () => ({ path: '../outside/secret', root: 0 })],
		['.. through a subdirectory', () => ({ path: 'sub/../../outside/secret', root: 0 })],
		['an absolute path outside', () => ({ path: W.p('outside/secret') })],
		['the prefix twin (root data, target datab/secret)', () => ({ path: W.p('datab/secret') })],
		['an absolute symlink', () => ({ path: W.p('data/abs-link') })],
		['a relative symlink', () => ({ path: W.p('data/rel-link') })],
		['a chain of symlinks', () => ({ path: W.p('data/chain1') })],
		['a symlink as a directory component', () => ({ path: W.p('data/dir-link/secret') })],
		['a symlink, from the root fd', () => ({ path: 'rel-link', root: 0 })],
		['/proc/self/root/<outside path>', () => ({ path: `/proc/self/root${W.p('outside/secret')}` })],
		['/proc/self/root/ with .. after an inside path', () => ({ path: `/proc/self/root${W.p('data')}/../outside/secret` })],
	];
	for (const [name, args] of cases) {
		test(name, async () => {
			const sc = contained(await attempt(A, 'read_path', { ...args(), secret: W.secret }), name);
			assert.equal(sc.bytes, -1, `${name}: the open itself should fail: ${sc.detail}`);
			assert.ok([EACCES, EPERM, 18 /* EXDEV */, 40 /* ELOOP */].includes(sc.errno),
			    `${name}: unexpected errno ${sc.errno}: ${sc.detail}`);
		});
	}

	test('the secret never reached the client', () => {
		assertNoLeak(A, [W.secret], 'reads');
	});
});

describe('a symlink swapped under the reader, thousands of times', () => {
	// [name, the link flipped, the path read, its inside and outside targets]
	const races = [
		['the last component flips between an inside file and the secret', 'data/race/link',
		    'data/race/link', () => ['inside.txt', W.p('outside/secret')]],
		['a directory component flips between an inside dir and the outside one', 'data/race/dlink',
		    'data/race/dlink/secret', () => ['idir', '../../outside']],
	];
	for (const [name, link, rel, targets] of races) {
		test(name, async () => {
			const [a, b] = targets();
			const flipper = startFlipper(W.p(link), a, b);
			let r;
			try {
				await flipper.started();
				// Bounded by time rather than by opens: the reader
				// must outlast a thousand flips, and how many opens
				// fit in a flip depends on the machine (here about
				// 200 a flip, with the reader on the other CPU).
				r = await call(A, 'race_read', {
					path: W.p(rel), secret: W.secret, inside: W.inside,
					iterations: 1_000_000, max_ms: 3000,
				}, { timeout: 20_000 });
			} finally {
				const flips = await flipper.stop();
				assert.ok(flips > 1000, `only ${flips} flips: no race to speak of`);
			}
			await assertServes(A, name);
			const sc = contained(r, name);
			assert.equal(sc.secret_reads, 0, `${sc.secret_reads} reads returned the secret`);
			// Both sides of the race were seen: the link named the inside
			// file for some opens and the outside one for others.
			assert.ok(sc.inside_reads > 0, `the inside target was never read: ${sc.detail}`);
			assert.ok(sc.denied > 0, `the outside target was never refused: ${sc.detail}`);
			assert.ok(sc.iterations >= 1000, `only ${sc.iterations} opens`);
			assertNoLeak(A, [W.secret], name);
		});
	}
});

describe('writing outside the writable root', () => {
	test('control: a write inside the writable root works', async () => {
		const sc = ran(await attempt(B, 'write_path', { path: W.p('wdata/ok.txt'), data: 'ok\n' }),
		    'control');
		assert.equal(sc.escaped, true, `the control write failed: ${sc.detail}`);
		assert.equal(readFileSync(W.p('wdata/ok.txt'), 'utf8'), 'ok\n');
	});

	const creates = [
		['.. in an absolute path', () => ({ path: W.p('wdata/../outside/w-dotdot') }), 'outside/w-dotdot'],
		['.. from the root\'s directory fd', () => ({ path: '../outside/w-rootfd', root: 0 }),
		    'outside/w-rootfd'],
		['an absolute path outside', () => ({ path: W.p('outside/w-abs') }), 'outside/w-abs'],
		['the prefix twin', () => ({ path: W.p('wdatab/w-twin') }), 'wdatab/w-twin'],
		['a dangling relative symlink, created through', () => ({ path: W.p('wdata/dangling') }),
		    'outside/w-dangling'],
		['a dangling absolute symlink, created through', () => ({ path: W.p('wdata/abs-dangling') }),
		    'outside/w-dangling-abs'],
		['a dangling symlink, from the root fd', () => ({ path: 'dangling', root: 0 }),
		    'outside/w-dangling'],
		['a symlinked directory component', () => ({ path: W.p('wdata/out-dir/w-dir') }),
		    'outside/w-dir'],
		['/proc/self/root/<outside path>', () => ({ path: `/proc/self/root${W.p('outside/w-procroot')}` }),
		    'outside/w-procroot'],
	];
	for (const [name, args, lands] of creates) {
		test(`create through ${name}`, async () => {
			contained(await attempt(B, 'write_path', { ...args(), data: W.secret }), name);
			assert.ok(!existsSync(W.p(lands)), `${lands} was created`);
		});
	}

	for (const mode of ['trunc', 'append']) {
		test(`overwrite an outside file through a symlink (${mode})`, async () => {
			contained(await attempt(B, 'write_path', { path: W.p('wdata/to-wsecret'), data: 'pwned\n', mode }),
			    mode);
			assert.equal(readFileSync(W.p('outside/wsecret'), 'utf8'), W.secret);
		});
	}

	test('a symlink the tool makes, then creates through (absolute and relative)', async () => {
		for (const [link, target, lands] of [
			['wdata/made-abs', () => W.p('outside/w-made-abs'), 'outside/w-made-abs'],
			['wdata/made-rel', () => '../outside/w-made-rel', 'outside/w-made-rel'],
		]) {
			const sc = contained(await attempt(B, 'symlink_write', {
				link: W.p(link), target: target(), data: W.secret,
			}), link);
			assert.ok(!existsSync(W.p(lands)), `${lands} was created`);
			// Making the link is allowed (it is a file beneath the
			// writable root); following it out is not.
			assert.equal(sc.symlink_errno, 0, `the link itself was refused: ${sc.detail}`);
		}
	});

	test('a hard link from inside to an outside file cannot be made', async () => {
		const before = statSync(W.p('outside/secret')).nlink;
		const sc = contained(await attempt(B, 'link_out', {
			op: 'link', from: W.p('outside/secret'), to: W.p('wdata/hardlink'), secret: W.secret,
		}), 'link');
		assert.notEqual(sc.errno, 0, sc.detail);
		assert.equal(sc.read_secret, false);
		assert.ok(!existsSync(W.p('wdata/hardlink')), 'the link was made');
		assert.equal(statSync(W.p('outside/secret')).nlink, before);
	});

	test('an outside file cannot be renamed in, nor an inside one out', async () => {
		contained(await attempt(B, 'link_out', {
			op: 'rename_in', from: W.p('outside/movable'), to: W.p('wdata/stolen'),
		}), 'rename_in');
		assert.ok(existsSync(W.p('outside/movable')), 'the outside file is gone');
		assert.ok(!existsSync(W.p('wdata/stolen')));
		contained(await attempt(B, 'link_out', {
			op: 'rename_out', from: W.p('wdata/victim'), to: W.p('outside/moved'),
		}), 'rename_out');
		assert.ok(existsSync(W.p('wdata/victim')), 'the inside file left');
		assert.ok(!existsSync(W.p('outside/moved')));
	});

	test('the secret never reached the client', () => {
		assertNoLeak(B, [W.secret], 'writes');
	});
});

describe('a writable and a read-only root in one server', () => {
	// The fs-write profile's Landlock rules give write rights beneath
	// the writable root only: to a hostile child, the read-only root of
	// the same server stays read-only, whichever call it changes a
	// directory with.  The tool reports each call's errno (0: it worked),
	// and the disk is looked at too.
	const LANDLOCK = ['open_write', 'open_append', 'open_rdwr', 'open_trunc', 'open_creat',
	    'tmpfile_link', 'mkdirat', 'unlinkat', 'rmdir', 'rename', 'exchange', 'rename_out',
	    'rename_in', 'symlinkat', 'linkat', 'link_in'];
	// Not on the profile's list.  A file's mode and times are not
	// Landlock's to govern, so chmod and utimes are refused to every
	// profile: under a read-only root they would change its files.
	const FILTERED = ['mknodat_fifo', 'truncate', 'fchmodat', 'fchmod_rdonly', 'utimensat'];
	let M;			// the server
	let n = 0;

	/* Puts the names the tool works on into |d|, and into |o| (in the
	 * writable root) those it renames and links in from; all the server
	 * user's and writable by it, so that only the sandbox refuses. */
	async function populate(d, o) {
		await fsp.mkdir(`${d}/doomed.d`, { recursive: true });
		await fsp.mkdir(o, { recursive: true });
		for (const f of ['victim', 'doomed', 'mover', 'swap', 'leaver'])
			await fsp.writeFile(`${d}/${f}`, `${f}\n`);
		await fsp.writeFile(`${o}/incoming`, 'incoming\n');
		await fsp.writeFile(`${o}/linksrc`, 'linksrc\n');
		execFileSync('chown', ['-R', `${serverUid()}:${runAs()?.gid ?? process.getgid()}`, d, o]);
	}

	/* A fresh directory beneath |parent| (of T), populated, and its
	 * partner in the writable root. */
	async function prepare(parent) {
		const d = W.p(`${parent}/t${++n}`);
		const o = W.p(`mix-rw/x${n}`);
		await populate(d, o);
		return [d, o];
	}

	/* Each entry of |dir|: its mode, mtime, link count and content. */
	function snapshot(dir) {
		const out = {};
		for (const name of readdirSync(dir).sort()) {
			const p = path.join(dir, name);
			const st = lstatSync(p);
			out[name] = { mode: st.mode, mtime: st.mtimeMs, nlink: st.nlink,
			    content: st.isFile() ? readFileSync(p, 'utf8') : st.isDirectory() ? '[dir]' : '[other]' };
		}
		return out;
	}
	const names = (snap) => Object.fromEntries(Object.entries(snap).map(([k, v]) => [k, v.content]));

	/* Runs write_every_way on |dir|; returns {op: errno}. */
	async function everyWay(dir, other) {
		const sc = ran(await attempt(M, 'write_every_way', { dir, other }), dir);
		const by = Object.fromEntries(sc.attempts.map((a) => [a.op, a.errno]));
		assert.deepEqual(Object.keys(by).sort(), [...LANDLOCK, ...FILTERED].sort());
		return by;
	}

	before(async () => {
		await fsp.mkdir(W.p('mix-rw'));
		await populate(W.p('mix-ro'), W.p('mix-rw/x0'));
		const pol = W.p('mix.policy');
		await fsp.writeFile(pol, `allow write ${W.p('mix-rw')}\nallow read ${W.p('mix-ro')}\n`);
		await fsp.chmod(pol, 0o644);
		M = await startServer(['--policy', pol], { server: HOSTILE });
	});

	after(async () => {
		await M?.close().catch(() => {});
	});

	test('control: in the writable root, every change the profile allows works', async () => {
		const [d, o] = await prepare('mix-rw');
		const by = await everyWay(d, o);
		for (const op of LANDLOCK)
			assert.equal(by[op], 0, `${op}: errno ${by[op]}`);
		for (const op of FILTERED)
			assert.equal(by[op], EPERM, op);
		for (const made of ['new-file', 'new-tmpfile', 'new-dir', 'new-symlink', 'new-hardlink', 'moved',
		    'incoming', 'linked-in'])
			assert.ok(existsSync(`${d}/${made}`), `${made} was not made`);
		assert.ok(existsSync(`${o}/left`), 'rename_out did not land');
	});

	for (const where of ['the root itself', 'a directory beneath it']) {
		test(`in the read-only root (${where}), every change Landlock governs is refused`, async () => {
			const [d, o] = where === 'the root itself' ? [W.p('mix-ro'), W.p('mix-rw/x0')]
			    : await prepare('mix-ro');
			const before_ = snapshot(d);
			const otherBefore = snapshot(o);
			const by = await everyWay(d, o);
			for (const op of LANDLOCK)
				assert.equal(by[op], EACCES, `${op}: errno ${by[op]}`);
			for (const op of FILTERED)
				assert.equal(by[op], EPERM, op);
			assert.deepEqual(names(snapshot(d)), names(before_), 'the read-only directory changed');
			assert.deepEqual(snapshot(o), otherBefore, 'what was to be renamed or linked in moved');
		});
	}

	test('in the read-only root, a file\'s mode and times cannot be changed', async () => {
		const [d, o] = await prepare('mix-ro');
		const before_ = snapshot(d);
		const by = await everyWay(d, o);
		for (const op of ['fchmodat', 'fchmod_rdonly', 'utimensat'])
			assert.equal(by[op], EPERM, `${op}: errno ${by[op]}`);
		assert.deepEqual(snapshot(d), before_, 'a mode or a time changed');
	});
});

describe('a result that is not UTF-8', () => {
	// The child's result goes to the client as it came, once the server
	// has checked it: bytes that are not UTF-8 anywhere in it make the
	// call a tool error, and none of them, nor what came with them,
	// reach the client.
	test('control: the marker comes through when the bytes are good', async () => {
		const marker = `TOOLCELL-MARK-${randomUUID()}`;
		const r = await attempt(A, 'bad_utf8', { where: 'none', marker });
		assert.notEqual(r.isError, true, JSON.stringify(r));
		assert.equal(textOf(r), marker);
	});

	for (const where of ['text', 'structured', 'key']) {
		test(`in the ${where}: a tool error, and nothing of the result reaches the client`, async () => {
			const marker = `TOOLCELL-MARK-${randomUUID()}`;
			const r = await attempt(A, 'bad_utf8', { where, marker });
			assert.equal(r.isError, true, JSON.stringify(r));
			assert.equal(textOf(r), 'the sandboxed handler sent a malformed result (result is not valid UTF-8)');
			assert.equal(r.structuredContent, undefined);
			assertNoLeak(A, [marker], where);
			assert.ok(!JSON.stringify(r).includes('\ufffd'), 'replaced bytes reached the client');
		});
	}
});

describe('the server\'s /proc files, fds and environment', () => {
	test('control: the server really holds the canary open as fd 7', (t) => {
		let target;
		try {
			target = readlinkSync(`/proc/${A.pid}/fd/7`);
		} catch (e) {
			return skipOrFail(t, `cannot read the server's fds from here: ${e.code}`);
		}
		assert.equal(target, W.p('canary'));
	});

	const procCases = [
		['environ', () => ({ what: 'environ', secret: W.envSecret })],
		['fd/7 (the canary it holds open)', () => ({ what: 'fd', fd: 7, secret: W.fdSecret })],
		['root/<outside path>', () => ({ what: 'root', rel: W.p('outside/secret').slice(1), secret: W.secret })],
		['cwd/<outside path>', () => ({ what: 'cwd', rel: path.relative(process.cwd(), W.p('outside/secret')),
		    secret: W.secret })],
	];
	for (const tool of ['server_proc', 'server_proc_exec']) {
		for (const [name, args] of procCases) {
			test(`${tool}: /proc/<server>/${name}`, async () => {
				const sc = contained(await attempt(A, tool, { ...args(), pid: A.pid }), name);
				// The tool aimed at the server, and the open itself failed.
				assert.equal(sc.server_pid, A.pid);
				assert.equal(sc.bytes, -1, `${name}: opened: ${sc.detail}`);
			});
		}
	}

	test('/proc/<server>/environ, with no /proc among the roots', async () => {
		const sc = contained(await attempt(B, 'server_proc', { what: 'environ', secret: W.envSecret }), 'B');
		assert.equal(sc.server_pid, B.pid);
		assert.equal(sc.errno, EACCES);
	});

	for (const tool of ['fd_canary', 'fd_canary_exec']) {
		test(`${tool}: no inherited fd holds the canary`, async () => {
			const sc = contained(await attempt(A, tool, { secret: W.fdSecret }), tool);
			assert.equal(sc.secret_fds, 0);
			assert.ok(!sc.fds.some((f) => f.fd === 7 && f.type === 'file'),
			    `fd 7 is open in the child: ${JSON.stringify(sc.fds)}`);
		});
	}

	test('control: the fd scan reads a file it finds open', async () => {
		const sc = ran(await attempt(A, 'fd_canary', { secret: W.control, open_first: W.p('data/control.txt') }),
		    'control');
		assert.equal(sc.escaped, true, `the open control file was not found: ${JSON.stringify(sc.fds)}`);
	});

	for (const tool of ['env_canary', 'env_canary_exec']) {
		test(`${tool}: the server's environment is nowhere in the child`, async () => {
			const sc = contained(await attempt(A, tool, { name: 'TOOLCELL_CANARY', secret: W.envSecret }),
			    tool);
			assert.equal(sc.in_getenv, false);
			assert.equal(sc.in_environ, false);
			assert.equal(sc.in_proc_environ, false);
			assert.equal(sc.in_memory, false);
			assert.ok(sc.memory_scanned > 0, 'the initial stack was not scanned');
		});
	}

	test('control: the memory scan finds what is there (a root path, in argv)', async () => {
		const sc = ran(await attempt(A, 'env_canary', { name: 'TOOLCELL_CANARY', secret: W.p('data') }),
		    'control');
		assert.equal(sc.in_memory, true, `argv was not found where the environment was looked for: ${sc.detail}`);
	});

	// A child keeps only the root fds its profile asks for: the sqlite
	// profile names its databases by path, and keeps none.
	test('root_fds_sqlite: a profile that keeps no root has no root fd open', async () => {
		const sc = contained(await attempt(A, 'root_fds_sqlite'), 'root_fds_sqlite');
		assert.equal(sc.nroots, 2);
		assert.equal(sc.roots, 0, sc.detail);
		assert.equal(sc.dirs, 0, sc.detail);
	});

	test('control: root_fds finds the root fds of a profile that keeps them', async () => {
		const sc = ran(await attempt(A, 'root_fds'), 'control');
		assert.equal(sc.roots, 2, sc.detail);
		assert.equal(sc.escaped, true);
	});

	test('none of the canaries reached the client', () => {
		assertNoLeak(A, [W.fdSecret, W.envSecret, W.secret], 'canaries');
	});
});

describe('other processes', () => {
	let V;			// a server to aim signals and ptrace at
	let sentinel;		// a process of the server's user, outside every call

	before(async () => {
		V = await startServer([W.p('data'), '/proc'], { server: HOSTILE });
		const argv = asServerUser(['sleep', '600']);
		sentinel = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
		await sleep(100);
	});

	after(async () => {
		sentinel?.kill('SIGKILL');
		await V?.close().catch(() => {});
	});

	const stillRunning = async (srv) => {
		const gone = await Promise.race([srv.exit.then(() => true), sleep(200).then(() => false)]);
		assert.equal(gone, false, 'the server exited');
	};

	for (const tool of ['signal_server', 'signal_server_exec']) {
		test(`${tool}: kill(server, SIGTERM) is refused`, async () => {
			const sc = contained(await attempt(V, tool, { pid: V.pid }), tool);
			assert.equal(sc.server_pid, V.pid);
			assert.notEqual(sc.errno, 0);
			await stillRunning(V);
		});
	}

	for (const tool of ['ptrace_server', 'ptrace_server_exec']) {
		test(`${tool}: ptrace(PTRACE_ATTACH) and process_vm_readv of the server`, async () => {
			const sc = contained(await attempt(V, tool, { pid: V.pid }), tool);
			assert.equal(sc.server_pid, V.pid);
			assert.equal(sc.attached, false);
			assert.equal(sc.vm_read_bytes, -1);
			assert.notEqual(sc.ptrace_errno, 0);
			assert.notEqual(sc.vm_errno, 0);
			await stillRunning(V);
		});
	}

	test('kill(-1, SIGKILL) reaches nothing outside the call', async (t) => {
		assert.equal(sentinel.exitCode, null, 'the sentinel did not start');
		const sc = contained(await attempt(V, 'kill_all', {
			pid: V.pid, sentinel: sentinel.pid, sentinel_uid: serverUid(),
		}), 'kill_all');
		assert.equal(sc.sentinel_reachable, false);
		assert.equal(sc.server_reachable, false);
		// The tool sends it only where it can show it stays in the
		// call; elsewhere it cannot be tried safely.
		if (!sc.sent)
			return skipOrFail(t, sc.detail);
		// The signal did go out, within the call: its own children died.
		assert.ok(sc.own_children > 0, sc.detail);
		assert.equal(sc.own_killed, sc.own_children, sc.detail);
		await sleep(100);
		assert.equal(sentinel.exitCode, null, 'the sentinel died');
		assert.equal(sentinel.signalCode, null, 'the sentinel was signalled');
		process.kill(sentinel.pid, 0);
		await stillRunning(V);
		await assertServes(A, 'the other server');
	});
});

/* What a test can see of process |pid| from /proc: its open-files limit,
 * CPUs, nice value and state. */
function processState(pid) {
	const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	// The fields after the command's closing parenthesis: state is the
	// first (3), nice the 17th (19).
	const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return {
		nofile: limits.match(/^Max open files\s+(\S+)\s+(\S+)/m)?.slice(1).join(' '),
		cpu: limits.match(/^Max cpu time\s+(\S+)\s+(\S+)/m)?.slice(1).join(' '),
		cpus: status.match(/^Cpus_allowed_list:\s+(\S+)/m)?.[1],
		nice: f[16],
		zombie: f[0] === 'Z',
	};
}

/* The probes of a reach_process or setid result that got through. */
function reachedProbes(sc) {
	assert.ok(Array.isArray(sc.probes) && sc.probes.length > 0, `no probes in ${JSON.stringify(sc)}`);
	return sc.probes.filter((p) => p.reached).map((p) => `${p.call} (rc ${p.rc})`);
}

describe('system calls that reach other processes', () => {
	let P;			// a server of its own, which an escape would wreck
	let bystander;		// a process of the server's user, in no call

	before(async () => {
		P = await startServer(['-w', W.p('wdata'), W.p('data')], { server: HOSTILE });
		const argv = asServerUser(['sleep', '600']);
		bystander = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
		await until(() => {
			try {
				return readFileSync(`/proc/${bystander.pid}/comm`, 'utf8').trim() === 'sleep';
			} catch {
				return false;
			}
		}, 10_000, 'the bystander');
	});

	after(async () => {
		bystander?.kill('SIGKILL');
		await P?.close().catch(() => {});
	});

	const tools = ['reach_process', 'reach_process_write', 'reach_process_sqlite', 'reach_process_exec'];
	const targets = [['the server', () => P.pid], ['an unrelated process', () => bystander.pid]];
	for (const tool of tools) {
		for (const [what, pidOf] of targets) {
			test(`${tool}: every pid-taking system call on ${what} is refused`, async () => {
				const pid = pidOf();
				const before = processState(pid);
				const server = processState(P.pid);
				const r = await call(P, tool, { pid, what }, { timeout: 30_000 });
				const sc = ran(r, tool);
				assert.equal(sc.target, pid);
				assert.deepEqual(reachedProbes(sc), [], `${tool} reached ${what}: ${sc.detail}`);
				assert.equal(sc.escaped, false, sc.detail);
				// The target and the server are as they were, and the
				// server still serves (with RLIMIT_NOFILE at 3 it could
				// not make the pipes of a call).
				assert.deepEqual(processState(pid), before, `${what} was changed`);
				assert.deepEqual(processState(P.pid), server, 'the server was changed');
				process.kill(pid, 0);
				await assertServes(P, `after ${tool}`);
			});
		}
	}

	test('the server\'s limits are its own after every attempt', async () => {
		const st = processState(P.pid);
		assert.notEqual(st.nofile, '3 3', 'RLIMIT_NOFILE was lowered to 3');
		assert.equal(st.zombie, false);
		for (let i = 0; i < 3; i++)
			await assertServes(P, `call ${i}`);
	});

	test('control: the probes report a call that reaches its target (the call itself)', async (t) => {
		// In a PID namespace of its own the exec profile's child is
		// pid 1: aimed at itself, the signals go through.
		const sc = ran(await call(P, 'reach_process_exec', { pid: 1, what: 'itself' }), 'control');
		if (sc.self !== 1)
			return skipOrFail(t, 'the exec profile has no PID namespace here');
		const reached = reachedProbes(sc);
		assert.ok(reached.some((c) => c.startsWith('kill ')), `kill did not reach itself: ${sc.detail}`);
		assert.ok(reached.some((c) => c.startsWith('tgkill ')), `tgkill did not reach itself: ${sc.detail}`);
		assert.equal(sc.escaped, true);
		await assertServes(P, 'after the control');
	});
});

/* Every file beneath |dir| (not following links) with a set-id bit. */
function setidFiles(dir) {
	const found = [];
	for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
		const p = path.join(e.parentPath ?? e.path, e.name);
		let st;
		try {
			st = lstatSync(p);
		} catch {
			continue;
		}
		if ((st.mode & 0o6000) !== 0)
			found.push(`${p} ${(st.mode & 0o7777).toString(8)}`);
	}
	return found;
}

describe('set-user-ID and set-group-ID bits', () => {
	const { uid, gid } = { uid: serverUid(), gid: runAs()?.gid ?? process.getgid() };
	const sources = [];

	before(async () => {
		// Where new files go (writable by the server's user in every
		// profile the permissions allow), files to chmod inside the
		// writable root and outside every root, and set-id files of
		// the server's user to link in: outside, and in a read-only
		// root.
		await fsp.mkdir(W.p('wdata/setid'), { mode: 0o777 });
		await fsp.chmod(W.p('wdata/setid'), 0o777);
		for (const f of ['wdata/setid-victim', 'outside/setid-victim', 'data/setid-victim']) {
			await fsp.writeFile(W.p(f), '#!/bin/sh\nid\n');
			await fsp.chown(W.p(f), uid, gid);
			await fsp.chmod(W.p(f), 0o755);
		}
		for (const f of ['outside/setid-src', 'data/setid-src']) {
			await fsp.writeFile(W.p(f), '#!/bin/sh\nid\n');
			await fsp.chown(W.p(f), uid, gid);
			await fsp.chmod(W.p(f), 0o6755);
			sources.push(W.p(f));
		}
	});

	const runs = [
		// [tool, server, label, args]
		['setid', () => B, 'fs-write: new files in the writable root; chmod inside it; link from outside',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('wdata/setid-victim'),
			setid_file: W.p('outside/setid-src') })],
		['setid', () => B, 'fs-write: chmod of a file outside every root',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('outside/setid-victim') })],
		['setid_fs', () => A, 'fs-read: chmod inside its read-only root, link from it',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('data/setid-victim'),
			setid_file: W.p('data/setid-src') })],
		['setid_sqlite', () => A, 'sqlite: chmod inside its read-only root and outside',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('outside/setid-victim'),
			setid_file: W.p('data/setid-src') })],
		['setid_sqlite', () => A, 'sqlite: chmod inside its read-only root',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('data/setid-victim') })],
		// Its rules give SQLite's files (made, written, removed) beneath
		// a writable root: new files there, chmod inside it, link in.
		['setid_sqlite', () => B, 'sqlite: new files in the writable root; chmod inside it; link from outside',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('wdata/setid-victim'),
			setid_file: W.p('outside/setid-src') })],
		['setid_exec', () => A, 'shell-exec: chmod outside every root',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('outside/setid-victim'),
			setid_file: W.p('data/setid-src') })],
		['setid_exec', () => A, 'shell-exec: chmod inside its read-only root',
		    (tag) => ({ dir: W.p('wdata/setid'), tag, file: W.p('data/setid-victim') })],
	];
	let n = 0;
	for (const [tool, srv, label, args] of runs) {
		test(`${tool}: ${label}`, async () => {
			const tag = `${tool}-${n++}`;
			const a = args(tag);
			const before = a.file ? statSync(a.file).mode : 0;
			const sc = ran(await attempt(srv(), tool, a), tool);
			assert.deepEqual(reachedProbes(sc), [], `${tool}: ${sc.detail}`);
			assert.equal(sc.escaped, false, sc.detail);
			// What is on disk, seen from here.
			if (a.file)
				assert.equal(statSync(a.file).mode, before, `${a.file} changed mode`);
			assert.deepEqual(setidFiles(W.p('wdata')), [], 'a set-id file in the writable root');
			for (const s of sources)
				assert.equal(statSync(s).mode & 0o7777, 0o6755, `${s} was changed`);
		});
	}

	test('control: the sqlite profile\'s own rules let it make a file in the writable root', async () => {
		const sc = ran(await attempt(B, 'setid_sqlite', { dir: W.p('wdata/setid'), tag: 'control-sqlite' }),
		    'control');
		assert.ok(sc.plain_mode > 0 && (sc.plain_mode & 0o170000) === 0o100000,
		    `no plain file was made: ${sc.detail}`);
		assert.equal(statSync(W.p('wdata/setid/control-sqlite-plain')).mode, sc.plain_mode);
	});

	test('control: the writable root takes new files, and the detector sees set-id bits', async () => {
		const sc = ran(await attempt(B, 'setid', { dir: W.p('wdata/setid'), tag: 'control',
		    setid_file: W.p('outside/setid-src') }), 'control');
		// A file made without set-id bits is made: what the attempts
		// met is the filter, not a directory they cannot write.
		assert.ok(sc.plain_mode > 0 && (sc.plain_mode & 0o170000) === 0o100000,
		    `no plain file was made: ${sc.detail}`);
		assert.equal(statSync(W.p('wdata/setid/control-plain')).mode, sc.plain_mode);
		// The mode the tool reads of a set-id file shows the bits.
		assert.equal(sc.source_mode & 0o7777, 0o6755, `source mode ${sc.source_mode}`);
	});
});

describe('system calls no tool may make', () => {
	for (const tool of ['io_uring', 'io_uring_exec']) {
		test(`${tool}: io_uring_setup (then IORING_OP_OPENAT of the secret)`, async () => {
			const sc = contained(await attempt(A, tool, { path: W.p('outside/secret'), secret: W.secret }), tool);
			assert.equal(sc.errno, EPERM, sc.detail);
			assert.equal(sc.read_secret, undefined);
		});
	}

	test('an x32 system call kills the child', async () => {
		// The filter checks the x32 bit itself, so the kill does not
		// depend on the kernel's x32 support.
		const r = await attempt(A, 'abi_x32');
		assert.equal(r.isError, true, `the x32 socket() returned: ${textOf(r)}`);
		assert.match(textOf(r), /killed by signal 31\b/);
	});

	test('an i386 system call (int 0x80) kills the child', async (t) => {
		const probe = contained(await attempt(A, 'abi_probe'), 'abi_probe');
		if (probe.ia32 === 'absent')
			return skipOrFail(t, 'this kernel has no ia32 emulation (int 0x80 faults)');
		assert.equal(probe.ia32, 'present', probe.detail);
		const r = await attempt(A, 'abi_int80');
		assert.equal(r.isError, true, `the i386 socket() returned: ${textOf(r)}`);
		assert.match(textOf(r), /killed by signal 31\b/);
	});

	for (const tool of ['tiocsti', 'tiocsti_exec']) {
		test(`${tool}: TIOCSTI on fds 0-2 and /dev/tty, with and without high bits`, async () => {
			const sc = contained(await attempt(A, tool), tool);
			assert.ok(sc.targets.length >= 3, JSON.stringify(sc.targets));
			for (const tg of sc.targets) {
				assert.notEqual(tg.errno, 0, `${tg.target}: TIOCSTI worked`);
				assert.notEqual(tg.high_errno, 0, `${tg.target}: TIOCSTI with high bits worked`);
			}
			assert.notEqual(sc.tty_errno, 0, 'the child has a terminal to open');
		});
	}

	const ops = ['mount', 'umount2', 'unshare_user', 'unshare_mount', 'clone_newuser', 'keyctl', 'add_key',
	    'bpf', 'perf_event_open', 'userfaultfd'];
	for (const tool of ['privileged', 'privileged_exec']) {
		for (const op of ops) {
			test(`${tool}: ${op} as ${serverUid() === 0 ? 'root' : 'uid ' + serverUid()}`, async () => {
				const sc = contained(await attempt(A, tool, { op, target: W.p('data/mnt') }),
				    `${tool} ${op}`);
				assert.notEqual(sc.errno, 0, sc.detail);
			});
		}
	}
});

describe('sockets to listeners the test owns', () => {
	const heard = { tcp: [], udp: [], unix: [], abstract: [] };
	const abstractName = `toolcell-hostile-${randomUUID()}`;
	let tcp;
	let udp;
	let unix;
	let abstract;
	let port;
	let udpPort;

	const listen = (srv, ...args) => new Promise((resolve, reject) => {
		srv.once('error', reject);
		srv.listen(...args, resolve);
	});
	const record = (kind) => (sock) => {
		let data = '';
		sock.on('data', (d) => { data += d; });
		sock.on('end', () => { heard[kind].push(data); });
		sock.on('error', () => {});
		heard[kind].push('(connection)');
	};

	before(async () => {
		tcp = net.createServer(record('tcp'));
		await listen(tcp, 0, '127.0.0.1');
		port = tcp.address().port;
		unix = net.createServer(record('unix'));
		await listen(unix, W.p('sock/listen.sock'));
		await fsp.chmod(W.p('sock/listen.sock'), 0o777);
		abstract = net.createServer(record('abstract'));
		await listen(abstract, `\0${abstractName}`);
		udp = dgram.createSocket('udp4');
		udp.on('message', (m) => heard.udp.push(m.toString()));
		await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
		udpPort = udp.address().port;
	});

	after(() => {
		tcp?.close();
		unix?.close();
		abstract?.close();
		udp?.close();
	});

	test('control: each listener hears a client that is not confined', async () => {
		const connectTo = (opts) => new Promise((resolve, reject) => {
			const s = net.connect(opts, () => s.end('hi', resolve));
			s.on('error', reject);
		});
		await connectTo({ host: '127.0.0.1', port });
		await connectTo({ path: W.p('sock/listen.sock') });
		await connectTo({ path: `\0${abstractName}` });
		const c = dgram.createSocket('udp4');
		await new Promise((resolve, reject) => c.send('hi', udpPort, '127.0.0.1', (e) => (e ? reject(e) : resolve())));
		c.close();
		await sleep(200);
		for (const k of Object.keys(heard)) {
			assert.ok(heard[k].length > 0, `${k}: the listener heard nothing`);
			heard[k].length = 0;
		}
	});

	const kinds = [
		['tcp', () => ({ port })],
		['udp', () => ({ port: udpPort })],
		['unix', () => ({ path: W.p('sock/listen.sock') })],
		['abstract', () => ({ name: abstractName })],
	];
	for (const tool of ['net_connect', 'net_connect_fs']) {
		for (const [kind, args] of kinds) {
			test(`${tool}: ${kind}`, async () => {
				const token = secretToken();
				const sc = contained(await attempt(A, tool, { kind, token, ...args() }), `${tool} ${kind}`);
				assert.notEqual(sc.errno, 0, sc.detail);
				await sleep(200);
				assert.deepEqual(heard[kind], [], `${kind}: the listener heard the sandbox`);
			});
		}
	}
});

describe('setuid and setgid binaries under no_new_privs', () => {
	let copy;
	let other;
	let noCopy = null;	// why there is no setuid copy, when there is none

	before(async () => {
		// A setuid copy of id(1), owned by a user the server is not:
		// nobody when it runs as root, root when it runs as anyone else.
		// Giving a file away takes root (chown(2)).
		copy = W.p('data/bin/id-setuid');
		other = serverUid() === 0 ? 65534 : 0;
		if (process.getuid() !== 0) {
			noCopy = `not root: only root can give a setuid copy of id(1) to uid ${other}`;
			return;
		}
		await fsp.copyFile(execFileSync('sh', ['-c', 'command -v id'], { encoding: 'utf8' }).trim(), copy);
		await fsp.chown(copy, other, other);
		await fsp.chmod(copy, 0o4755);
	});

	/*
	 * Runs |bin| as the server's user without no_new_privs, its stdin a
	 * pipe held open, and returns the {euid, egid} it has once it runs
	 * (null if it could not be watched).
	 */
	async function idsOutside(bin, args) {
		const argv = asServerUser([bin, ...args]);
		const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'ignore', 'ignore'] });
		child.on('error', () => {});
		const name = path.basename(bin).slice(0, 15);
		const field = (st, k) => Number(st.match(new RegExp(`^${k}:\\t\\d+\\t(\\d+)`, 'm'))?.[1] ?? -1);
		try {
			for (let i = 0; i < 100; i++) {
				await sleep(10);
				let st;
				try {
					st = readFileSync(`/proc/${child.pid}/status`, 'utf8');
				} catch {
					return null;
				}
				if (st.startsWith(`Name:\t${name}\n`))
					return { euid: field(st, 'Uid'), egid: field(st, 'Gid') };
			}
			return null;
		} finally {
			// EOF first, for a shell su may have started as root.
			child.stdin.destroy();
			child.kill('SIGKILL');
		}
	}

	test('a setuid binary inside the roots: not run, or run with the caller\'s euid', async (t) => {
		if (noCopy)
			return skipOrFail(t, noCopy);
		// Control: without no_new_privs, the copy does change the euid.
		const argv = asServerUser([copy, '-u']);
		const outside = execFileSync(argv[0], argv.slice(1), { encoding: 'utf8' }).trim();
		if (outside !== String(other))
			return skipOrFail(t, `setuid bits do not apply under ${W.T} (it printed ${outside})`);
		const sc = contained(await attempt(A, 'setuid_exec', { path: copy, args: ['-u'] }), 'setuid id');
		assert.equal(sc.euid, serverUid());
		if (sc.exec_errno === 0)
			assert.equal(sc.printed_euid, serverUid(), sc.detail);
		else
			assert.equal(sc.exec_errno, EACCES, sc.detail);
	});

	test('the system\'s setuid and setgid programs keep the caller\'s ids', async (t) => {
		const candidates = [
			['/usr/bin/su', ['root']],			// setuid root
			['/usr/bin/passwd', []],			// setuid root
			['/usr/sbin/unix_chkpwd', ['root', 'nullok']],	// setgid shadow
		];
		const exercised = [];
		for (const [bin, args] of candidates) {
			if (!existsSync(bin))
				continue;
			const outside = await idsOutside(bin, args);
			const sc = contained(await attempt(A, 'setuid_exec', { path: bin, args, watch_ms: 300 }), bin);
			assert.equal(sc.euid, serverUid());
			if (sc.exec_errno !== 0)
				continue;
			// passwd with no terminal may end before it is first
			// looked at: it shows nothing, and the others must.
			if (sc.ended_unwatched === 1) {
				t.diagnostic(`${bin} ended before it could be watched`);
				continue;
			}
			assert.ok(sc.observations > 0, `${bin}: ran, but was never watched: ${sc.detail}`);
			assert.equal(sc.seen_euid, -1, `${bin}: ran with euid ${sc.seen_euid}`);
			assert.equal(sc.seen_egid, -1, `${bin}: ran with egid ${sc.seen_egid}`);
			if (outside && (outside.euid !== sc.euid || outside.egid !== sc.egid))
				exercised.push(`${bin} (${outside.euid}:${outside.egid} outside)`);
		}
		// At least one of them raises an id outside the sandbox and ran
		// inside it: else no_new_privs was never put to the test.
		if (exercised.length === 0)
			return skipOrFail(t, 'no setuid or setgid program here both raises an id of this user and runs in '
			    + 'the exec profile');
		t.diagnostic(`raised an id outside, kept it inside: ${exercised.join(', ')}`);
	});
});

describe('programs the exec profile runs stay in its sandbox', () => {
	test('control: a program runs and reads what the profile allows', async (t) => {
		const sc = ran(await attempt(A, 'exec_capture', { path: '/bin/cat', args: ['/etc/passwd'], secret: 'root:' }),
		    'control');
		if (sc.exec_errno !== 0)
			return skipOrFail(t, `the exec profile runs no program here: ${sc.detail}`);
		assert.equal(sc.escaped, true, `cat /etc/passwd: ${sc.detail}`);
	});

	const runs = [
		['cat of the outside secret', () => ['/bin/cat', [W.p('outside/secret')], W.secret]],
		['cat through a symlink out', () => ['/bin/cat', [W.p('data/abs-link')], W.secret]],
		['sh -c cat of the prefix twin', () => ['/bin/sh', ['-c', `cat ${W.p('datab/secret')}`], W.secret]],
		['cat of /etc/shadow (which root may read, the call may not)', () => ['/bin/cat', ['/etc/shadow'],
		    'root:']],
	];
	for (const [name, what] of runs) {
		test(name, async () => {
			const [bin, args, secret] = what();
			const sc = contained(await attempt(A, 'exec_capture', { path: bin, args, secret }), name);
			if (sc.exec_errno === 0)
				assert.notEqual(sc.exit_status, 0, `${name}: it succeeded: ${sc.detail}`);
		});
	}
	test('nothing read reached the client', () => {
		assertNoLeak(A, [W.secret], 'exec');
	});
});

describe('code written at run time', () => {
	for (const tool of ['wx_memory', 'wx_memory_exec']) {
		test(`${tool}: mprotect() cannot make written memory executable`, async () => {
			const sc = ran(await attempt(A, tool), tool);
			assert.equal(sc.mprotect_errno, EPERM, sc.detail);
			assert.equal(sc.mprotect_ran, false, sc.detail);
		});
		test(`${tool}: an anonymous mmap() cannot be writable and executable`, async () => {
			const sc = ran(await attempt(A, tool), tool);
			assert.equal(sc.mmap_ran, false, sc.detail);
			assert.notEqual(sc.mmap_errno, 0, sc.detail);
		});
	}
});

describe('processes a call leaves behind', () => {
	test('a fork bomb ends with its call', async () => {
		const tag = tagOf('hbomb');
		const r = await call(A, 'fork_bomb', { max: 10000, tag }, { timeout: 90_000 });
		const sc = contained(r, 'fork_bomb');
		assert.ok(sc.forked > 0, `no child was forked: ${sc.detail}`);
		if (serverUid() !== 0)
			// RLIMIT_NPROC (64) counts the call's own user namespace.
			assert.ok(sc.forked < 64, `${sc.forked} children as uid ${serverUid()}`);
		await assertServes(A, 'after the fork bomb');
		const left = await waitEmpty(() => processesNamed(tag), 15_000);
		assert.deepEqual(left, [], `${left.length} of ${sc.forked} bomb processes survived the call`);
		await assertServes(A, 'after the fork bomb is gone');
	});

	test('an orphan out of the process group ends with its call', async () => {
		const tag = tagOf('horph');
		const sc = contained(await attempt(A, 'orphan', { tag, seconds: 100 }), 'orphan');
		assert.equal(sc.new_session, true, 'the grandchild could not leave the process group');
		assert.ok(sc.pid > 1, sc.detail);
		const alive = () => {
			try {
				const comm = readFileSync(`/proc/${sc.pid}/comm`, 'utf8').trim();
				return comm === tag || comm === 'sleep' ? [sc.pid] : [];
			} catch {
				return [];
			}
		};
		const left = await waitEmpty(alive, 5_000);
		assert.deepEqual(left, [], `grandchild ${sc.pid} outlived its call`);
		assert.deepEqual(processesNamed(tag), []);
	});

	for (const [tool, ns] of [['status', false], ['status_exec', true]]) {
		test(`${tool}: no capabilities, no_new_privs, seccomp${ns ? ', pid 1 of its own namespace' : ''}`,
		    async (t) => {
			const sc = contained(await attempt(A, tool), tool);
			const zero = '0000000000000000';
			for (const k of ['CapInh', 'CapPrm', 'CapEff', 'CapAmb'])
				assert.equal(sc[k], zero, `${k} ${sc[k]}`);
			assert.equal(sc.NoNewPrivs, '1');
			assert.equal(sc.Seccomp, '2');
			if (serverUid() === 0 || ns)
				assert.equal(sc.CapBnd, zero, `CapBnd ${sc.CapBnd}`);
			assert.equal(sc.Uid.split(' ')[1], String(serverUid()), `Uid ${sc.Uid}`);
			if (!ns)
				return;
			if (/without namespaces/.test(A.initResult.instructions ?? ''))
				return skipOrFail(t, 'the kernel denies namespaces to the exec profile here');
			const nspid = sc.NSpid.split(' ');
			assert.equal(nspid.length, 2, `NSpid ${sc.NSpid}`);
			assert.equal(nspid[1], '1', `NSpid ${sc.NSpid}`);
		});
	}
});

describe('resources', () => {
	let C;			// a server with a 2-second deadline

	before(async () => {
		C = await startServer(['-t', '2000', W.p('data')], { server: HOSTILE });
	});

	after(async () => {
		await C?.close().catch(() => {});
	});

	test('a memory bomb hits the 1 GiB address-space limit, not the machine', async (t) => {
		const r = await attempt(A, 'memory_bomb', { chunk_mib: 16, cap_mib: 4096, limit_mib: 1024 }, 60_000);
		if (r.structuredContent?.sanitizer_build)
			return skipOrFail(t, 'the sanitizer build sets no RLIMIT_AS');
		const sc = contained(r, 'memory_bomb');
		assert.equal(sc.rlimit_as, 1024 * 1024 * 1024);
		assert.ok(sc.allocated_mib > 256, `only ${sc.allocated_mib} MiB: the bomb did not go off`);
		assert.ok(sc.allocated_mib < 1024, `${sc.allocated_mib} MiB`);
	});

	test('fd exhaustion stops at RLIMIT_NOFILE', async () => {
		const sc = contained(await attempt(A, 'fd_exhaust'), 'fd_exhaust');
		assert.equal(sc.errno, EMFILE, sc.detail);
		assert.equal(sc.rlimit_nofile, 256);
		assert.ok(sc.opened > 200 && sc.highest_fd < 256, sc.detail);
	});

	test('a result past the cap is discarded, with a reason', async () => {
		const r = await attempt(A, 'output_flood', { mode: 'text', mib: 80, token: 'x' }, 60_000);
		assert.equal(r.isError, true, 'an oversized result came through');
		assert.match(textOf(r), /exceeded the \d+-byte limit/);
	});

	test('a flood of MCP-looking lines on stdout never reaches the client', async () => {
		const token = secretToken();
		const errors = A.clientErrors.length;
		const sc = contained(await attempt(A, 'output_flood', { mode: 'stdout', mib: 4, token }), 'stdout');
		assert.equal(sc.stdout_is_devnull, true);
		assert.ok(sc.stdout_bytes >= 4 << 20, sc.detail);
		assertNoLeak(A, [token], 'stdout');
		assert.equal(A.clientErrors.length, errors, 'the client saw errors');
	});

	for (const tool of ['cpu_spin', 'sleep_forever']) {
		test(`${tool} is stopped at the deadline`, async () => {
			const t0 = Date.now();
			const r = await call(C, tool, {}, { timeout: 20_000 });
			const ms = Date.now() - t0;
			assert.equal(r.isError, true);
			assert.match(textOf(r), /deadline of 2000 ms/);
			assert.ok(ms >= 1900 && ms < 8000, `stopped after ${ms} ms`);
			await assertServes(C, tool);
		});
	}
});

// Only a root server can switch users; the pass as nobody has nothing to
// run here (a non-root server refusing --run-as is in runas.test.mjs).
if (serverUid() === 0) {
	describe('a root server with --run-as nobody', () => {
		let R;

		before(async () => {
			R = await startServer(['--run-as', 'nobody', W.p('data'), '/proc'], { server: HOSTILE });
		});

		after(async () => {
			await R?.close().catch(() => {});
		});

		test('a fork bomb is bounded by RLIMIT_NPROC and ends with its call', async () => {
			const tag = tagOf('hbnpr');
			const sc = contained(await attempt(R, 'fork_bomb', { max: 10000, tag }, 60_000), 'fork_bomb');
			assert.ok(sc.forked > 0 && sc.forked < 64, `${sc.forked} children`);
			assert.notEqual(sc.errno, 0, sc.detail);
			const left = await waitEmpty(() => processesNamed(tag), 10_000);
			assert.deepEqual(left, []);
		});

		test('calls run as nobody, without capabilities', async () => {
			for (const tool of ['status', 'status_exec']) {
				const sc = contained(await attempt(R, tool), tool);
				assert.equal(sc.euid, 65534, sc.detail);
				assert.equal(sc.CapEff, '0000000000000000');
				assert.equal(sc.CapBnd, '0000000000000000');
			}
		});
	});
}

