// startup.test.mjs: --check sees what start sees.  For each problem a start
// can meet (the audit key, the log, its directory, a directory given twice
// or that calls cannot read), --check and a real start of the same command
// line agree: both fail with the same error lines, or both pass; the
// server makes the log's directory at the XDG place, and --check only says
// it would; messages naming long paths are whole.
//
// With TOOLCELL_AS=nobody the server runs as nobody: the directories it
// writes to, and the key files, belong to it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import {
	call, logRecords, makeScratch, makeTree, runAs, serverCommand, serverIds, startServer,
	symlink, textOf,
} from './lib.mjs';

let tree;
const base = await makeScratch('startup');
const { policy, ownedDir } = base;

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n', sub: symlink('.') });
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

/*
 * Runs toolcell-fs with |args| and no input, with the environment |env|
 * (PATH and what it names; nothing else, so that no HOME or
 * XDG_STATE_HOME of the test's own leaks in).  Returns {status, stdout,
 * stderr}.  A start that succeeds serves until its input ends, at once.
 */
async function run(args, env = {}) {
	const cmd = await serverCommand(args);
	const r = spawnSync(cmd.command, cmd.args, {
		input: '', encoding: 'utf8', timeout: 10_000,
		env: { PATH: process.env.PATH, ...env },
	});
	if (r.error)
		throw r.error;
	return r;
}

/* The summary line of |n| errors, with or without start's ": not starting". */
const summary = (n, starting) => `toolcell-fs: ${n} error${n === 1 ? '' : 's'}`
    + `${starting ? ': not starting' : ''}\n`;

/*
 * Runs |args| with --check, then as a real start, and checks that both
 * fail with the error lines |errors| (each without its "toolcell-fs:
 * error: " head), --check's summary "N errors" and start's "N errors: not
 * starting", and nothing on stdout.  Returns {check, start}.
 */
async function bothFail(args, errors, env = {}) {
	const lines = errors.map((e) => `toolcell-fs: error: ${e}\n`).join('');
	const check = await run([...args, '--check'], env);
	const start = await run(args, env);
	assert.equal(check.stderr, lines + summary(errors.length, false), '--check');
	assert.equal(check.status, 1, '--check exits 1');
	assert.equal(check.stdout, '');
	assert.equal(start.stderr, lines + summary(errors.length, true), 'start');
	assert.equal(start.status, 1, 'start exits 1');
	assert.equal(start.stdout, '');
	return { check, start };
}

/*
 * A key file of |bytes| random bytes in |dir| with |mode|, owned by the
 * server's user.  Its last byte is never a newline, which the server drops
 * (toolcell-audit(1)): the key is then exactly |bytes| long.
 */
async function keyFile(dir, mode = 0o600, bytes = 32) {
	const k = path.join(dir, `key-${randomBytes(4).toString('hex')}`);
	const key = randomBytes(bytes);
	if (key[bytes - 1] === 0x0a)
		key[bytes - 1] = 0x0b;
	await fsp.writeFile(k, key, { mode });
	await fsp.chmod(k, mode);
	const { uid, gid } = serverIds();
	await fsp.chown(k, uid, gid);
	return k;
}

const asRoot = () => serverIds().uid === 0;

describe('--check and start agree', () => {
	test('no key file', async () => {
		const d = await ownedDir();
		const key = path.join(d, 'audit.key');
		const p = await policy([`allow read ${tree.root}`, `audit ${d}/l.jsonl`,
		    `audit-key ${key}`]);
		await bothFail(['--policy', p], [`audit key '${key}': No such file or directory`]);
	});

	test('a key others can read (mode 0644)', async () => {
		const d = await ownedDir();
		const key = await keyFile(d, 0o644);
		const p = await policy([`allow read ${tree.root}`, `audit ${d}/l.jsonl`,
		    `audit-key ${key}`]);
		await bothFail(['--policy', p], [`audit key '${key}': readable or writable by group `
		    + `or others (mode 0644): chmod 600 '${key}'`]);
	});

	test('a key too short', async () => {
		const d = await ownedDir();
		const key = await keyFile(d, 0o600, 8);
		const p = await policy([`allow read ${tree.root}`, `audit ${d}/l.jsonl`,
		    `audit-key ${key}`]);
		await bothFail(['--policy', p], [`audit key '${key}': 8 bytes, fewer than 16 (make one `
		    + `with: head -c 32 /dev/urandom > '${key}')`]);
	});

	test('the log\'s directory does not exist (not the XDG place): named', async () => {
		const d = await ownedDir();
		const dir = path.join(d, 'no', 'such');
		const log = path.join(dir, 'l.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		await bothFail(['--policy', p], [`cannot open audit log '${log}': no directory `
		    + `'${dir}' (make it with: mkdir -p -m 700 '${dir}')`]);
		await assert.rejects(fsp.stat(path.join(d, 'no')), { code: 'ENOENT' });
	});

	test('the log is a directory, or a symbolic link', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'dir.jsonl');
		await fsp.mkdir(log);
		let p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		await bothFail(['--policy', p], [`cannot open audit log '${log}': Is a directory`]);
		const link = path.join(d, 'link.jsonl');
		await fsp.symlink(path.join(d, 'target.jsonl'), link);
		p = await policy([`allow read ${tree.root}`, `audit ${link}`]);
		await bothFail(['--policy', p], [`audit log '${link}' is a symbolic link: name the `
		    + 'file itself']);
		await assert.rejects(fsp.stat(path.join(d, 'target.jsonl')), { code: 'ENOENT' });
	});

	test('a log its directory does not let the server create', async (t) => {
		if (asRoot()) {
			t.skip('the server runs as root, who may write in any directory');
			return;
		}
		// A directory no one but root may create in (0555), whoever
		// runs the tests: the server is not root here.
		const d = base.unique('no-create');
		await fsp.mkdir(d, { mode: 0o555 });
		await fsp.chmod(d, 0o555);
		const log = path.join(d, 'log.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		await bothFail(['--policy', p], [`cannot open audit log '${log}': Permission denied`]);
	});

	test('a log altered since, or keyed differently', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'altered.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const first = await run(['--policy', p]);
		assert.equal(first.status, 0, first.stderr);
		const recs = await logRecords(log);
		const text = await fsp.readFile(log, 'utf8');
		await fsp.writeFile(log, text.replace(/"reason":"eof"/, '"reason":"EOF"'));
		await bothFail(['--policy', p], [`audit log '${log}': its last record (seq `
		    + `${recs.at(-1).seq}) does not match its hash (altered); run 'toolcell-audit `
		    + `verify ${log}'`]);
		const log2 = path.join(d, 'plain.jsonl');
		const plain = await policy([`allow read ${tree.root}`, `audit ${log2}`]);
		assert.equal((await run(['--policy', plain])).status, 0);
		const keyed = await policy([`allow read ${tree.root}`, `audit ${log2}`,
		    `audit-key ${await keyFile(d)}`]);
		await bothFail(['--policy', keyed], [`audit log '${log2}' is a plain SHA-256 chain, `
		    + 'but an audit key is set: start a new log for a keyed chain']);
	});

	test('every problem is listed, not only the first', async () => {
		const d = await ownedDir();
		const key = path.join(d, 'none.key');
		const missing = path.join(tree.root, 'missing');
		const p = await policy([`allow read ${tree.root}`, `allow read ${missing}`,
		    `audit ${d}/l.jsonl`, `audit-key ${key}`]);
		await bothFail(['--policy', p], [
			`${p}:2: allow read: '${missing}': No such file or directory`,
			`audit key '${key}': No such file or directory`,
		]);
	});

	test('a good policy: both pass, and --check writes nothing', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'good.jsonl');
		const key = await keyFile(d);
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`, `audit-key ${key}`]);
		let check = await run(['--policy', p, '--check']);
		assert.equal(check.stderr, '');
		assert.equal(check.status, 0);
		assert.match(check.stdout, /^policy: /);
		await assert.rejects(fsp.stat(log), { code: 'ENOENT' }, '--check made no log');
		const start = await run(['--policy', p]);
		assert.equal(start.stderr, '');
		assert.equal(start.status, 0);
		const before = await fsp.readFile(log, 'utf8');
		assert.deepEqual((await logRecords(log)).map((r) => r.event), ['start', 'stop']);
		check = await run(['--policy', p, '--check']);
		assert.equal(check.stderr, '');
		assert.equal(check.status, 0);
		assert.equal(await fsp.readFile(log, 'utf8'), before, '--check wrote nothing');
	});
});

describe('the audit log\'s directory at the XDG place', () => {
	/* A home for the server's user, with nothing in it. */
	async function home() {
		return ownedDir();
	}

	/* Checks that |dirs| are directories of mode 0700, the server's. */
	async function made(dirs) {
		const { uid } = serverIds();
		for (const d of dirs) {
			const st = await fsp.stat(d);
			assert.ok(st.isDirectory(), d);
			assert.equal(st.mode & 0o7777, 0o700, `${d}: mode ${(st.mode & 0o7777).toString(8)}`);
			assert.equal(st.uid, uid, d);
		}
	}

	test('~/.local/state/toolcell: --check says it would make it; start makes it, 0700',
	    async () => {
		const h = await home();
		const p = await policy([`allow read ${tree.root}`,
		    'audit ~/.local/state/toolcell/fs-audit.jsonl']);
		const dir = path.join(h, '.local/state/toolcell');
		const check = await run(['--policy', p, '--check'], { HOME: h });
		assert.equal(check.stderr, `toolcell-fs: would create the audit log's directory '${dir}' `
		    + '(mode 0700)\n');
		assert.equal(check.status, 0);
		assert.match(check.stdout, new RegExp(`audit: ${dir}/fs-audit\\.jsonl`));
		await assert.rejects(fsp.stat(path.join(h, '.local')), { code: 'ENOENT' },
		    '--check made nothing');
		const start = await run(['--policy', p], { HOME: h });
		assert.equal(start.stderr, `toolcell-fs: created the audit log's directory '${dir}' `
		    + '(mode 0700)\n');
		assert.equal(start.status, 0);
		await made([path.join(h, '.local'), path.join(h, '.local/state'), dir]);
		assert.deepEqual((await logRecords(path.join(dir, 'fs-audit.jsonl'))).map((r) => r.event),
		    ['start', 'stop']);
		// Made once: the next start and --check say nothing.
		assert.equal((await run(['--policy', p], { HOME: h })).stderr, '');
		assert.equal((await run(['--policy', p, '--check'], { HOME: h })).stderr, '');
	});

	test('$XDG_STATE_HOME/toolcell and beneath it', async () => {
		const h = await home();
		const state = path.join(h, 'state');
		const dir = path.join(state, 'toolcell', 'fs');
		const p = await policy([`allow read ${tree.root}`, `audit ${dir}/log.jsonl`]);
		const env = { HOME: h, XDG_STATE_HOME: state };
		const check = await run(['--policy', p, '--check'], env);
		assert.equal(check.stderr, `toolcell-fs: would create the audit log's directory '${dir}' `
		    + '(mode 0700)\n');
		assert.equal(check.status, 0);
		const start = await run(['--policy', p], env);
		assert.equal(start.status, 0, start.stderr);
		await made([state, path.join(state, 'toolcell'), dir]);
	});

	test('elsewhere, and beside the toolcell directory, a missing one stays an error',
	    async () => {
		const h = await home();
		for (const dir of [path.join(h, 'logs'), path.join(h, '.local/state/other'),
		    path.join(h, '.local/state')]) {
			const log = path.join(dir, 'fs.jsonl');
			const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
			await bothFail(['--policy', p], [`cannot open audit log '${log}': no directory `
			    + `'${dir}' (make it with: mkdir -p -m 700 '${dir}')`], { HOME: h });
		}
		await assert.rejects(fsp.stat(path.join(h, '.local')), { code: 'ENOENT' });
	});
});

describe('a directory given twice is served once', () => {
	/* What list_allowed_directories says for a server started with |args|. */
	async function served(args) {
		const srv = await startServer(args);
		try {
			const r = await call(srv, 'list_allowed_directories', {});
			return { dirs: r.structuredContent.directories, text: textOf(r), stderr: srv.stderr() };
		} finally {
			await srv.close();
		}
	}

	test('in the policy and on the command line, spelt otherwise', async () => {
		const p = await policy([`allow read ${tree.root}`]);
		for (const spelling of [tree.root, `${tree.root}/`, `${tree.root}/.`, tree.p('sub'),
		    `${tree.root}//sub/./`, path.relative(process.cwd(), tree.root)]) {
			const s = await served(['--policy', p, spelling]);
			assert.deepEqual(s.dirs, [{ path: tree.root, access: 'read-only' }], spelling);
			assert.doesNotMatch(s.stderr, /warning|error/, spelling);
		}
		const check = await run(['--policy', p, tree.p('sub'), '--check']);
		assert.match(check.stdout, new RegExp(`directories:\\n  read-only   ${tree.root}  `
		    + '\\(line 1 and the command line\\)\\nlimits'));
	});

	test('twice on the command line', async () => {
		const s = await served([tree.root, tree.p('sub')]);
		assert.deepEqual(s.dirs, [{ path: tree.root, access: 'read-only' }]);
		assert.doesNotMatch(s.stderr, /warning|error/);
	});

	test('read-only in the policy, --write on the command line: writable, said once', async () => {
		const w = await makeTree({ 'a.txt': 'alpha\n' });
		try {
			const { uid, gid } = serverIds();
			await fsp.chown(w.root, uid, gid);
			const p = await policy([`allow read ${w.root}`]);
			const note = `toolcell-fs: warning: '${w.root}' is given twice, read-only (line 1) `
			    + 'and writable (command line): served once, writable\n';
			const check = await run(['--policy', p, '--write', w.root, '--check']);
			assert.equal(check.stderr, note);
			assert.match(check.stdout, new RegExp(`  read-write  ${w.root}  \\(line 1 and the `
			    + 'command line\\)\\n'));
			const srv = await startServer(['--policy', p, '--write', w.root]);
			try {
				const r = await call(srv, 'list_allowed_directories', {});
				assert.deepEqual(r.structuredContent.directories,
				    [{ path: w.root, access: 'read-write' }]);
				const wr = await call(srv, 'write_file', { path: 'b.txt', content: 'b' });
				assert.equal(wr.isError, undefined, JSON.stringify(wr));
				assert.ok(srv.stderr().startsWith(note), srv.stderr());
			} finally {
				await srv.close();
			}
		} finally {
			await w.cleanup();
		}
	});

	test('writable in the policy, plain on the command line: writable', async () => {
		const w = await makeTree({});
		try {
			const { uid, gid } = serverIds();
			await fsp.chown(w.root, uid, gid);
			const p = await policy([`allow write ${w.root}`]);
			const check = await run(['--policy', p, w.root, '--check']);
			assert.equal(check.stderr, `toolcell-fs: warning: '${w.root}' is given twice, `
			    + 'writable (line 1) and read-only (command line): served once, writable\n');
			assert.match(check.stdout, new RegExp(`  read-write  ${w.root}  \\(line 1 and the `
			    + 'command line\\)\\n'));
		} finally {
			await w.cleanup();
		}
	});
});

describe('a directory calls cannot read', () => {
	/* A directory of |mode|, root's when we are root, in a fresh tree. */
	async function dirOf(mode) {
		const t = await makeTree({ 'd/f.txt': 'x\n' });
		await fsp.chmod(t.p('d'), mode);
		return { t, d: t.p('d') };
	}

	test('mode 000: a warning naming it, from --check and from start', async () => {
		const { t, d } = await dirOf(0o000);
		try {
			const uid = runAs() ? runAs().uid : process.getuid();
			const warning = `toolcell-fs: warning: '${d}' (command line): calls, which run as `
			    + `uid ${uid} without privileges, cannot read it (mode 0000, owner uid `
			    + `${process.getuid()}): every call in it will be refused\n`;
			const check = await run([d, '--check']);
			assert.equal(check.stderr, warning);
			assert.equal(check.status, 0);
			const start = await run([d]);
			assert.equal(start.stderr, warning);
			assert.equal(start.status, 0);
		} finally {
			await fsp.chmod(d, 0o755);
			await t.cleanup();
		}
	});

	test('served writable, but calls cannot write in it (mode 0555)', async () => {
		const { t, d } = await dirOf(0o555);
		try {
			const uid = runAs() ? runAs().uid : process.getuid();
			const warning = `toolcell-fs: warning: '${d}' (command line): calls, which run as `
			    + `uid ${uid} without privileges, cannot write in it (mode 0555, owner uid `
			    + `${process.getuid()}): every change in it will be refused\n`;
			const check = await run(['--write', d, '--check']);
			assert.equal(check.stderr, warning);
			assert.equal(check.status, 0);
			assert.equal((await run(['--write', d])).stderr, warning);
		} finally {
			await fsp.chmod(d, 0o755);
			await t.cleanup();
		}
	});

	test('as --run-as USER: what that user cannot read', async (t) => {
		if (process.getuid() !== 0 || runAs()) {
			t.skip('--run-as needs a server started as root');
			return;
		}
		const { t: tr, d } = await dirOf(0o700);
		try {
			const nobody = Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' })
			    .stdout.trim());
			const check = await run(['--run-as', 'nobody', d, '--check']);
			assert.equal(check.stderr, `toolcell-fs: warning: '${d}' (command line): calls, `
			    + `which run as uid ${nobody} without privileges, cannot read it (mode 0700, `
			    + 'owner uid 0): every call in it will be refused\n');
			assert.equal(check.status, 0);
		} finally {
			await tr.cleanup();
		}
	});

	test('a directory calls can read: no warning', async () => {
		const check = await run([tree.root, '--check']);
		assert.equal(check.stderr, '');
		assert.equal(check.status, 0);
	});
});

describe('messages naming long paths are whole', () => {
	test('a log altered, deep down: --check and start name it whole, twice', async () => {
		// About 3,000 bytes of path: the message names it twice.
		let dir = await ownedDir();
		const { uid, gid } = serverIds();
		for (let i = 0; i < 12; i++) {
			dir = path.join(dir, `${String(i).padStart(2, '0')}${'d'.repeat(240)}`);
			await fsp.mkdir(dir);
			await fsp.chmod(dir, 0o755);
		}
		await fsp.chown(dir, uid, gid);
		const log = path.join(dir, 'altered.jsonl');
		assert.ok(log.length > 2900, `${log.length}`);
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		assert.equal((await run(['--policy', p])).status, 0);
		const recs = await logRecords(log);
		const text = await fsp.readFile(log, 'utf8');
		await fsp.writeFile(log, text.replace(/"reason":"eof"/, '"reason":"EOF"'));
		const error = `audit log '${log}': its last record (seq ${recs.at(-1).seq}) does not `
		    + `match its hash (altered); run 'toolcell-audit verify ${log}'`;
		const start = await run(['--policy', p]);
		assert.equal(start.status, 1);
		assert.ok(start.stderr.includes(`${error}\n`), `cut: ${start.stderr.length} bytes`);
		await bothFail(['--policy', p], [error]);
	});
});
