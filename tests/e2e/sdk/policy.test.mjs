// policy.test.mjs: toolcell-fs --policy FILE, toolcell-policy(5): --check
// prints the effective policy or every error, and a server started from a
// policy serves its directories with its limits, the command line
// overriding them.
//
// With TOOLCELL_AS=nobody the server runs as nobody, so everything here is
// made under a 0755 temp dir with 0644 files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import { BUILD, call, runAs, serverCommand, serverIds, startServer, textOf } from './lib.mjs';

let base;

/* Writes |text| into base/|name| with |mode|; returns its path. */
async function policy(name, text, mode = 0o644) {
	const p = path.join(base, name);
	await fsp.writeFile(p, text);
	await fsp.chmod(p, mode);
	return p;
}

/* Runs toolcell-fs (or |server|) with |args| and no input; returns
 * {status, stdout, stderr}. */
async function run(args, env, server) {
	const cmd = await serverCommand(args, server);
	const r = spawnSync(cmd.command, cmd.args, {
		input: '', encoding: 'utf8', timeout: 10_000,
		env: env ? { ...process.env, ...env } : process.env,
	});
	if (r.error)
		throw r.error;
	return r;
}

before(async () => {
	base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-policy-')));
	await fsp.chmod(base, 0o755);
	const { uid, gid } = serverIds();
	for (const d of ['proj', 'scratch', 'with space', 'extra']) {
		await fsp.mkdir(path.join(base, d));
		await fsp.chmod(path.join(base, d), 0o755);
		// Some are served writable: the server's user's, or a start
		// warns that calls cannot write in them.
		await fsp.chown(path.join(base, d), uid, gid);
	}
	await fsp.writeFile(path.join(base, 'proj', 'a.txt'), 'alpha\n');
	await fsp.chmod(path.join(base, 'proj', 'a.txt'), 0o644);
	await fsp.writeFile(path.join(base, 'with space', 'b.txt'), 'bravo\n');
	await fsp.chmod(path.join(base, 'with space', 'b.txt'), 0o644);
});

after(async () => {
	await fsp.rm(base, { recursive: true, force: true });
});

describe('--check', () => {
	test('prints the effective policy on stdout and exits 0', async () => {
		const p = await policy('ok.policy', [
			'# A project, read-only, and a scratch directory.',
			`allow read ${base}/proj/`,
			`allow write "${base}/with space"   # quoted: it has a blank`,
			'timeout 5s',
			'limit memory 256M',
			'limit output 1M',
			'allow-degraded seccomp',
			'',
		].join('\n'));
		const r = await run(['--policy', p, '--check']);
		assert.equal(r.stderr, '');
		assert.equal(r.status, 0);
		assert.ok(r.stdout.startsWith([
			`policy: ${p}`,
			'directories:',
			`  read-only   ${base}/proj  (line 2)`,
			`  read-write  ${base}/with space  (line 3)`,
			'limits per call:',
			'  timeout     5s      (line 4)',
			'  memory      256M    (line 5)',
			'  cpu         30s     (default)',
			'  output      1M      (line 6)',
			'  files       256     (default)',
			'  processes   64      (default)',
			'  filesize    1G      (default)',
		].join('\n') + '\n'), r.stdout);
		assert.match(r.stdout, /^deny \(wins over allow\):\n {2}read-write {2}\*\*\/\.env {2}\(built in\)$/m);
		assert.match(r.stdout, /^ {2}read_text_file {14}on$/m);
		assert.match(r.stdout, /^consent:\n {2}no call needs it$/m);
		assert.match(r.stdout, /^network: off {2}\(default\)$/m);
		assert.match(r.stdout, /^audit: off$/m);
		assert.ok(r.stdout.endsWith([
			'run-as: none (calls run as the server\'s user)',
			'allow-degraded: seccomp (line 7)',
			'',
		].join('\n')), r.stdout);
	});

	test('children, and jobs where the server starts them, with their origins', async () => {
		const p = await policy('jobs.policy', `allow read ${base}/proj\nchildren 3\njobs 2\n`);
		const fs = await run(['-p', p, '--check']);
		assert.equal(fs.status, 0, fs.stderr);
		assert.match(fs.stdout, /^children: 3 ready per profile {2}\(line 2\)$/m);
		// toolcell-fs starts no jobs: their settings are not shown, and
		// one that is set is said to have no effect.
		assert.doesNotMatch(fs.stdout, /^jobs:|^job-lifetime:/m);
		assert.equal(fs.stderr, `toolcell-fs: warning: ${p}:3: 'jobs' has no effect: `
		    + 'toolcell-fs starts no jobs\n');
		const hs = await run(['-p', p, '--check'], undefined,
		    path.join(BUILD, 'tests', 'toolcell-hostile'));
		assert.equal(hs.status, 0, hs.stderr);
		assert.equal(hs.stderr, '');
		assert.match(hs.stdout, /^jobs: 2 at once {2}\(line 3\)$/m);
		assert.match(hs.stdout, /^job-lifetime: 1h {2}\(default\)$/m);
	});

	test('command-line options override the policy, and add directories', async () => {
		const p = await policy('over.policy', `allow read ${base}/proj\ntimeout 5s\n`);
		const r = await run(['-p', p, '--check', '-t', '250', '--allow-degraded',
		    'landlock', '-w', path.join(base, 'extra')]);
		assert.equal(r.stderr, '');
		assert.equal(r.status, 0);
		assert.match(r.stdout, /^ {2}timeout {5}250ms {3}\(command line\)$/m);
		assert.match(r.stdout, new RegExp(`^  read-write  ${base}/extra  \\(command line\\)$`, 'm'));
		assert.match(r.stdout, new RegExp(`^  read-only   ${base}/proj  \\(line 1\\)$`, 'm'));
		assert.match(r.stdout, /^allow-degraded: landlock \(command line\)$/m);
	});

	test('~/ is the HOME of the user running the server', async () => {
		const p = await policy('home.policy', 'allow read ~/proj\n');
		const r = await run(['--policy', p, '--check'], { HOME: base });
		assert.equal(r.stderr, '');
		assert.equal(r.status, 0);
		assert.match(r.stdout, new RegExp(`^  read-only   ${base}/proj  \\(line 1\\)$`, 'm'));
	});

	test('prints every error, file:line: message, on stderr and exits 1', async () => {
		const p = await policy('bad.policy', [
			`allow read ${base}/proj`,
			'deny ../.env',
			'allow read relative/dir',
			`allow read ${base}/nonexistent`,
			'timeout 30',
			'limit memory 1M',
			'timeout 2s',
			'timeout 3s',
			'',
		].join('\n'));
		const r = await run(['--policy', p, '--check']);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '', 'nothing on stdout');
		assert.equal(r.stderr, [
			`toolcell-fs: error: ${p}:2: deny: '../.env': a pattern cannot contain '..'`,
			`toolcell-fs: error: ${p}:3: allow read: 'relative/dir' is a relative path: write an absolute path (or one starting with ~/)`,
			`toolcell-fs: error: ${p}:4: allow read: '${base}/nonexistent': No such file or directory`,
			`toolcell-fs: error: ${p}:5: timeout: '30' is not a duration: write a whole number and a unit, ms, s, m or h (like 30s)`,
			`toolcell-fs: error: ${p}:6: limit memory: '1M' is out of range: 16M to 1T`,
			`toolcell-fs: error: ${p}:8: timeout: already set at line 7`,
			'toolcell-fs: 6 errors',
			'',
		].join('\n'));
	});

	test('run-as is resolved as --run-as is, with the same messages', async () => {
		const p = await policy('runas.policy', `allow read ${base}/proj\nrun-as nobody\n`);
		const r = await run(['--policy', p, '--check']);
		if (process.getuid?.() === 0 && !runAs()) {
			assert.equal(r.stderr, '');
			assert.equal(r.status, 0);
			assert.match(r.stdout, /^run-as: nobody, uid \d+, gid \d+ {2}\(line 2\)$/m);
		} else {
			assert.equal(r.status, 1);
			assert.equal(r.stdout, '');
			assert.equal(r.stderr, `toolcell-fs: error: ${p}:2: run-as: only a server `
			    + 'started as root can run its calls as another user\ntoolcell-fs: 1 error\n');
		}
	});

	test('a policy writable by group or others is refused', async () => {
		const p = await policy('gw.policy', `allow read ${base}/proj\n`, 0o664);
		const r = await run(['--policy', p, '--check']);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, `toolcell-fs: error: ${p}: writable by group or others; `
		    + `chmod go-w ${p}\ntoolcell-fs: 1 error\n`);
	});

	test('a policy owned by another user than root or the server\'s is refused', async (t) => {
		if (process.getuid() !== 0) {
			t.skip('giving the policy to another user needs root');
			return;
		}
		const other = 54321;	// neither root nor the server's user
		const p = await policy('other.policy', `allow read ${base}/proj\n`);
		await fsp.chown(p, other, other);
		const r = await run(['--policy', p, '--check']);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, `toolcell-fs: error: ${p}: owned by uid ${other}, neither root nor `
		    + `the user running the server (uid ${serverIds().uid}): that user could change the `
		    + 'policy\ntoolcell-fs: 1 error\n');
	});

	test('a policy without an allow line says what to write', async () => {
		const p = await policy('empty.policy', '# nothing yet\n');
		const r = await run(['--policy', p, '--check']);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.match(r.stderr, /empty\.policy: no 'allow' line: write 'allow read \/path\/to\/dir'/);
	});
});

describe('serving from a policy', () => {
	test('serves the policy\'s directories, and the command line\'s', async () => {
		const p = await policy('serve.policy', [
			`allow read ${base}/proj`,
			`allow write "${base}/with space"`,
			'timeout 10s',
			'',
		].join('\n'));
		const srv = await startServer(['--policy', p, path.join(base, 'extra')]);
		try {
			const dirs = await call(srv, 'list_allowed_directories', {});
			assert.deepEqual(dirs.structuredContent.directories, [
				{ path: `${base}/proj`, access: 'read-only' },
				{ path: `${base}/with space`, access: 'read-write' },
				{ path: `${base}/extra`, access: 'read-only' },
			]);
			const a = await call(srv, 'read_text_file', { path: 'a.txt' });
			assert.ok(!a.isError, textOf(a));
			assert.equal(a.structuredContent.content, 'alpha\n');
			const b = await call(srv, 'read_text_file', { path: `${base}/with space/b.txt` });
			assert.ok(!b.isError, textOf(b));
			assert.equal(b.structuredContent.content, 'bravo\n');
			const out = await call(srv, 'read_text_file', { path: p });
			assert.equal(out.isError, true, 'the policy itself is outside');
		} finally {
			await srv.close();
		}
	});

	test('applies the policy\'s output limit to a call', async () => {
		await fsp.writeFile(path.join(base, 'proj', 'big.txt'), 'x'.repeat(8192));
		await fsp.chmod(path.join(base, 'proj', 'big.txt'), 0o644);
		const p = await policy('small.policy', `allow read ${base}/proj\nlimit output 1K\n`);
		const srv = await startServer(['--policy', p]);
		try {
			const r = await call(srv, 'read_text_file', { path: 'big.txt' });
			assert.equal(r.isError, true, JSON.stringify(r).slice(0, 200));
			assert.match(textOf(r), /1024/);
		} finally {
			await srv.close();
		}
	});

	test('refuses to start on an error, with nothing on stdout', async () => {
		const p = await policy('unknown.policy', `allow read ${base}/proj\nnetwork-access off\n`);
		const r = await run(['--policy', p]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, `toolcell-fs: error: ${p}:2: unknown keyword 'network-access'\n`
		    + 'toolcell-fs: 1 error: not starting\n');
	});

	test('--write with a policy and no DIR is refused, not ignored', async () => {
		const p = await policy('w.policy', `allow read ${base}/proj\n`);
		const r = await run(['--policy', p, '--write']);
		assert.equal(r.status, 2, 'a usage error');
		assert.equal(r.stdout, '');
		assert.match(r.stderr, /--write: it applies to the directories given on the command line, and there are none; write 'allow write DIR' in the policy instead/);
	});

	test('with neither a policy nor a directory, names --policy FILE', async () => {
		const r = await run([]);
		assert.equal(r.status, 2, 'a usage error');
		assert.equal(r.stdout, '');
		assert.match(r.stderr, /no directories to serve: run 'toolcell-fs --policy FILE'/);
	});
});
