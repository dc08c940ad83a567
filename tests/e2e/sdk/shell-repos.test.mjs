// shell-repos.test.mjs: toolcell-shell keeps the .git of the repositories
// beneath its writable directories read-only to calls (escape class 42:
// a hook or a core.fsmonitor written by a call runs as the user the next
// time the user runs git there), driven with the official MCP client.
//
// Each write is tried with sh, the way any program would (git itself, a
// build step): it must fail with EROFS, and the file must be unchanged
// when looked at from outside.  Then: the repository cannot be moved
// aside and replaced; a call whose working directory is in the
// repository, or beneath a read-only directory that holds the writable
// one, is held the same; a repository made while the server runs is held
// from the next call on; a job is held; git reads a held repository and
// cannot commit; "repositories writable" gives it all back, and --check
// says which it is; a directory with more repositories than a child binds
// is refused at start.  With TOOLCELL_AS=nobody the server runs as nobody.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { BUILD, call, fileUri, makeScratch, runAs, runServer, serverIds, startServer, textOf } from './lib.mjs';

const SHELL = path.join(BUILD, 'toolcell-shell');
const GIT = ['/usr/bin/git', '/bin/git'].find((p) => existsSync(p)) ?? null;

let scratch;

before(async () => {
	scratch = await makeScratch('shrepos');
});

after(async () => {
	await scratch?.cleanup();
});

/* Gives |p| (and everything beneath it) to the server's user. */
function own(p) {
	const { uid, gid } = serverIds();
	execFileSync('chown', ['-R', `${uid}:${gid}`, p]);
}

/* A repository at |dir|: git's own where git is installed, else the
 * files git would look at. */
async function makeRepo(dir) {
	if (GIT !== null) {
		execFileSync(GIT, ['init', '-q', dir], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
	} else {
		await fsp.mkdir(path.join(dir, '.git', 'hooks'), { recursive: true });
		await fsp.writeFile(path.join(dir, '.git', 'config'), '[core]\n');
	}
	await fsp.writeFile(path.join(dir, '.git', 'config'), '\n[user]\n\tname = t\n\temail = t@example.invalid\n',
	    { flag: 'a' });
	own(dir);
}

/*
 * A writable directory W of the server's user: a repository at its top,
 * two one level down (a, b), a plain directory (plain) and one two levels
 * down (x/deep).
 */
async function world() {
	const w = await scratch.ownedDir();
	await fsp.chmod(w, 0o755);
	await makeRepo(w);
	await makeRepo(path.join(w, 'a'));
	await makeRepo(path.join(w, 'b'));
	await fsp.mkdir(path.join(w, 'plain'));
	await fsp.mkdir(path.join(w, 'x'));
	await makeRepo(path.join(w, 'x', 'deep'));
	own(w);
	return w;
}

async function shell(lines, opts = {}) {
	const file = await scratch.policy(lines);
	return startServer(['--policy', file], { server: SHELL, ...opts });
}

/* Runs "sh -c |script|" with |extra| arguments; returns {exit, stdout, stderr}. */
async function sh(srv, script, extra = {}) {
	const r = await call(srv, 'run_command', { argv: ['sh', '-c', script], ...extra });
	assert.notEqual(r.isError, true, textOf(r));
	const sc = r.structuredContent;
	return { exit: sc.exit_code, stdout: sc.stdout, stderr: sc.stderr };
}

/* The files a call must not change, and what they hold now. */
function snapshot(w) {
	const files = ['.git/config', 'a/.git/config', 'b/.git/config', 'a/.git/HEAD'];
	return Object.fromEntries(files.map((f) => [f, readFileSync(path.join(w, f), 'utf8')]));
}

function unchanged(w, snap) {
	for (const [f, text] of Object.entries(snap))
		assert.equal(readFileSync(path.join(w, f), 'utf8'), text, `${f} changed`);
	for (const d of ['.git', 'a/.git', 'b/.git'])
		assert.equal(existsSync(path.join(w, d, 'hooks', 'pre-commit')), false, `${d}/hooks/pre-commit was made`);
}

describe('repositories beneath a writable directory', { skip: !existsSync(SHELL) && `${SHELL} is not built` }, () => {
	let w;
	let srv;
	let snap;

	before(async () => {
		w = await world();
		srv = await shell([`allow write ${w}`, '[shell]', 'program sh', 'program mv', 'program rm',
		    'program ln', 'program cat', ...(GIT !== null ? ['program git'] : [])]);
		snap = snapshot(w);
	});

	after(async () => {
		await srv?.close();
	});

	test('a call cannot write into .git, at the top or one level down', async () => {
		for (const d of ['.git', 'a/.git', 'b/.git']) {
			const o = await sh(srv, `echo '[core] fsmonitor = x' >> ${d}/config; echo "#!/bin/sh" > ${d}/hooks/pre-commit; echo done`);
			assert.equal(o.stdout, 'done\n');
			assert.match(o.stderr, new RegExp(`cannot create ${d.replace('.', '\\.')}/config: Read-only file system`));
			assert.match(o.stderr, /hooks\/pre-commit: Read-only file system/);
		}
		unchanged(w, snap);
	});

	test('nor remove, move or replace it, nor move the repository aside', async () => {
		const o = await sh(srv, 'rm -rf a/.git; mv a/.git a/old; mv a a2; mv .git old; echo done');
		assert.equal(o.stdout, 'done\n');
		assert.match(o.stderr, /rm: cannot remove 'a\/\.git\/config': Read-only file system/);
		assert.match(o.stderr, /mv: cannot move 'a\/\.git' to 'a\/old': Device or resource busy/);
		assert.match(o.stderr, /mv: cannot move 'a' to 'a2': Device or resource busy/);
		assert.match(o.stderr, /mv: cannot move '\.git' to 'old': Device or resource busy/);
		assert.equal(existsSync(path.join(w, 'a2')), false);
		unchanged(w, snap);
	});

	test('from a working directory inside the repository', async () => {
		const o = await sh(srv, 'echo x > .git/config; echo x > hooks-here; echo done', { cwd: path.join(w, 'a') });
		assert.equal(o.stdout, 'done\n');
		assert.match(o.stderr, /cannot create \.git\/config: Read-only file system/);
		// The rest of the repository is as writable as ever.
		assert.equal(readFileSync(path.join(w, 'a', 'hooks-here'), 'utf8'), 'x\n');
		unchanged(w, snap);
	});

	test('the rest of the directory stays writable', async () => {
		const o = await sh(srv, 'echo y > plain/f && echo y > a/f && echo y > top-f && echo ok');
		assert.equal(o.stdout, 'ok\n', o.stderr);
		assert.equal(readFileSync(path.join(w, 'plain', 'f'), 'utf8'), 'y\n');
	});

	test('two levels down is not looked for: --check and the docs say so', async () => {
		// Written to show the limit, not hidden: the kernel's execute
		// right still keeps such a hook from starting a shell in a call.
		const o = await sh(srv, 'echo "# a" >> x/deep/.git/description && echo written');
		assert.equal(o.stdout, 'written\n', o.stderr);
	});

	test('git reads a held repository, and cannot commit there', { skip: GIT === null && 'git is not installed' }, async () => {
		const st = await call(srv, 'run_command', { argv: ['git', 'status', '--short'], cwd: path.join(w, 'a') });
		assert.equal(st.structuredContent.exit_code, 0, JSON.stringify(st.structuredContent));
		const c = await call(srv, 'run_command', { argv: ['git', 'commit', '--allow-empty', '-m', 'x'], cwd: path.join(w, 'a') });
		assert.notEqual(c.structuredContent.exit_code, 0);
		assert.match(c.structuredContent.stderr, /index\.lock': Read-only file system/);
		unchanged(w, snap);
	});

	test('a repository made while the server runs is held from the next call on', async () => {
		// After a call, so that ready children are waiting, made before
		// any of these existed.
		await sh(srv, 'true');
		await makeRepo(path.join(w, 'fresh'));
		await fsp.mkdir(path.join(w, 'plain', '.git', 'hooks'), { recursive: true });
		own(path.join(w, 'plain'));
		await fsp.rename(path.join(w, 'x', 'deep'), path.join(w, 'moved'));
		for (const d of ['fresh/.git', 'plain/.git', 'moved/.git']) {
			const o = await sh(srv, `echo x > ${d}/hooks/pre-commit; echo done`);
			assert.match(o.stderr, /Read-only file system/, `${d}: ${JSON.stringify(o)}`);
			assert.equal(existsSync(path.join(w, d, 'hooks', 'pre-commit')), false, d);
		}
		await fsp.rename(path.join(w, 'moved'), path.join(w, 'x', 'deep'));
	});

	test('a job is held the same', async () => {
		const r = await call(srv, 'start_command', { argv: ['sh', '-c', 'echo x > b/.git/config; echo done'] });
		assert.notEqual(r.isError, true, textOf(r));
		const job = r.structuredContent.job;
		assert.ok(Number.isInteger(job), JSON.stringify(r));
		// Until the job has ended: its stdout and stderr are two pipes,
		// and "done" may come before the error printed ahead of it.
		let text = '';
		let offset = 0;
		for (let i = 0; i < 50; i++) {
			const o = (await call(srv, 'read_output', { job, offset, wait_ms: 2000 })).structuredContent;
			text += o.output;
			offset = o.next_offset;
			if (o.state !== 'running' && o.output === '')
				break;
		}
		assert.match(text, /b\/\.git\/config: Read-only file system/);
		assert.match(text, /done/);
		unchanged(w, snap);
	});
});

describe('git under run-as, in a repository another user owns', () => {
	// The README's advice for "dubious ownership": git's own (a global
	// safe.directory) cannot work in the sandbox, whose HOME is a scratch
	// directory; the policy's forced prefix can.
	const why = !existsSync(SHELL) ? `${SHELL} is not built`
	    : GIT === null ? 'git is not installed'
	    : process.getuid() !== 0 || runAs() !== null ? 'a server of root is needed to run calls as nobody in root\'s repository'
	    : false;
	test('refused as git says, then read with -c safe.directory=* in the prefix', { skip: why }, async () => {
		const top = await fsp.mkdtemp(path.join(scratch.root, 'rootrepo-'));
		await fsp.chmod(top, 0o755);
		await makeRepo(top);
		execFileSync('chmod', ['-R', 'a+rX', top]);
		const run = async (lines) => {
			const srv = await shell([`allow read ${top}`, 'run-as nobody', '[shell]', 'program git', ...lines]);
			try {
				return (await call(srv, 'run_command', { argv: ['git', 'log', '--oneline', '-1'] })).structuredContent;
			} finally {
				await srv.close();
			}
		};
		const bare = await run([]);
		assert.notEqual(bare.exit_code, 0);
		assert.match(bare.stderr, /detected dubious ownership in repository/);
		const fixed = await run(['args git prefix -c safe.directory=* -c core.fsmonitor= -c core.hooksPath=/dev/null']);
		assert.doesNotMatch(fixed.stderr, /dubious ownership/, JSON.stringify(fixed));
		// A fresh repository has no commit: git says so, having read it.
		assert.match(fixed.stderr, /does not have any commits yet/);
	});
});

describe('a writable directory beneath a read-only one', { skip: !existsSync(SHELL) && `${SHELL} is not built` }, () => {
	test('a call working in the read-only one reaches the repository held too', async () => {
		const top = await scratch.ownedDir();
		await fsp.chmod(top, 0o755);
		const w = path.join(top, 'work');
		await fsp.mkdir(w);
		await makeRepo(path.join(w, 'r'));
		own(top);
		const before = readFileSync(path.join(w, 'r', '.git', 'config'), 'utf8');
		const srv = await shell([`allow read ${top}`, `allow write ${w}`, '[shell]', 'program sh']);
		try {
			const o = await sh(srv, 'echo x > work/r/.git/config; echo x > work/ok; echo done', { cwd: top });
			assert.equal(o.stdout, 'done\n');
			assert.match(o.stderr, /work\/r\/\.git\/config: Read-only file system/);
			assert.equal(readFileSync(path.join(w, 'ok'), 'utf8'), 'x\n');
			assert.equal(readFileSync(path.join(w, 'r', '.git', 'config'), 'utf8'), before);
		} finally {
			await srv.close();
		}
	});
});

describe('what else is kept', { skip: !existsSync(SHELL) && `${SHELL} is not built` }, () => {
	test('a writable directory nested in another: neither it nor a directory above it can be moved aside', async () => {
		const w = await scratch.ownedDir();
		await fsp.chmod(w, 0o755);
		const inner = path.join(w, 'p', 'q');
		await fsp.mkdir(inner, { recursive: true });
		await makeRepo(inner);
		own(w);
		const before = readFileSync(path.join(inner, '.git', 'config'), 'utf8');
		const srv = await shell([`allow write ${w}`, `allow write ${inner}`, '[shell]', 'program sh', 'program mv']);
		try {
			const o = await sh(srv, 'mv p p2; mv p/q p/q2; echo x >> p/q/.git/config; echo done', { cwd: w });
			assert.equal(o.stdout, 'done\n');
			assert.match(o.stderr, /mv: cannot move 'p' to 'p2': Device or resource busy/);
			assert.match(o.stderr, /mv: cannot move 'p\/q' to 'p\/q2': Device or resource busy/);
			assert.match(o.stderr, /p\/q\/\.git\/config: Read-only file system/);
			assert.equal(readFileSync(path.join(inner, '.git', 'config'), 'utf8'), before);
		} finally {
			await srv.close();
		}
	});

	test('the .git of a checked-out submodule, and the directories on the way to it', { skip: GIT === null && 'git is not installed' }, async () => {
		const w = await scratch.ownedDir();
		await fsp.chmod(w, 0o755);
		const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: w, GIT_AUTHOR_NAME: 't',
		    GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
		const git = (cwd, ...a) => execFileSync(GIT, a, { cwd, env, stdio: 'pipe' });
		git(w, 'init', '-q', 'libsrc');
		git(path.join(w, 'libsrc'), 'commit', '-q', '--allow-empty', '-m', 'l');
		git(w, 'init', '-q', 'super');
		git(path.join(w, 'super'), '-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', '../libsrc',
		    'vendor/lib');
		own(w);
		const gitfile = readFileSync(path.join(w, 'super', 'vendor', 'lib', '.git'), 'utf8');
		const srv = await shell([`allow write ${w}`, '[shell]', 'program sh', 'program mv', 'program rm']);
		try {
			const o = await sh(srv, 'rm super/vendor/lib/.git; echo "gitdir: /tmp" > super/vendor/lib/.git; '
			    + 'mv super/vendor super/v2; mv super/vendor/lib super/vendor/l2; echo done', { cwd: w });
			assert.equal(o.stdout, 'done\n');
			assert.match(o.stderr, /rm: cannot remove 'super\/vendor\/lib\/\.git': Device or resource busy/);
			assert.match(o.stderr, /super\/vendor\/lib\/\.git: Read-only file system/);
			assert.match(o.stderr, /mv: cannot move 'super\/vendor' to 'super\/v2': Device or resource busy/);
			assert.match(o.stderr, /mv: cannot move 'super\/vendor\/lib' to 'super\/vendor\/l2': Device or resource busy/);
			assert.equal(readFileSync(path.join(w, 'super', 'vendor', 'lib', '.git'), 'utf8'), gitfile);
			// The rest of the submodule's work tree is the calls' to change.
			assert.equal((await sh(srv, 'echo y > super/vendor/lib/f && echo ok', { cwd: w })).stdout, 'ok\n');
		} finally {
			await srv.close();
		}
	});

	test('submodules git knows of from above the writable directory, from a linked worktree, and at odd paths', { skip: GIT === null && 'git is not installed' }, async () => {
		const w = await scratch.ownedDir();
		await fsp.chmod(w, 0o755);
		const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: w, GIT_AUTHOR_NAME: 't',
		    GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
		const git = (cwd, ...a) => execFileSync(GIT, a, { cwd, env, stdio: 'pipe' });
		const add = (repo, at) => git(repo, '-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', '../libsrc', at);
		git(w, 'init', '-q', 'libsrc');
		git(path.join(w, 'libsrc'), 'commit', '-q', '--allow-empty', '-m', 'l');
		const proj = path.join(w, 'proj');
		git(w, 'init', '-q', 'proj');
		for (const at of ['sub/lib/m', 'lib/a#b', 'lib/c;d', 'lib/g"h', 'lib/e\\f', 'a/b/c/d/e/f/g/h/i/j'])
			add(proj, at);
		git(proj, 'commit', '-q', '-m', 'subs');
		const main = path.join(w, 'main');
		git(w, 'init', '-q', 'main');
		git(main, 'commit', '-q', '--allow-empty', '-m', 'm');
		add(main, 'lib/m');
		git(main, 'commit', '-q', '-m', 's');
		const trees = path.join(w, 'trees');
		await fsp.mkdir(trees);
		git(main, 'worktree', 'add', '-q', path.join(trees, 'wt'));
		git(path.join(trees, 'wt'), '-c', 'protocol.file.allow=always', 'submodule', '-q', 'update', '--init');
		own(w);
		const tryAll = (dirs) => dirs.map((d) => `echo x >> '${d}/.git'`).join('; ') + '; echo done';
		// The writable directory inside the repository: its .git is out
		// of reach, its submodule's .git beneath is not.
		let srv = await shell([`allow write ${path.join(proj, 'sub')}`, '[shell]', 'program sh', 'program mv']);
		try {
			const o = await sh(srv, `${tryAll(['lib/m'])}; mv lib l2`, { cwd: path.join(proj, 'sub') });
			assert.match(o.stderr, /lib\/m\/\.git: Read-only file system/);
			assert.match(o.stderr, /cannot move 'lib' to 'l2': Device or resource busy/);
		} finally {
			await srv.close();
		}
		srv = await shell([`allow write ${proj}`, `allow write ${trees}`, '[shell]', 'program sh']);
		try {
			const odd = ['lib/a#b', 'lib/c;d', 'lib/g"h', 'lib/e\\f', 'a/b/c/d/e/f/g/h/i/j', 'sub/lib/m'];
			const o = await sh(srv, tryAll(odd), { cwd: proj });
			for (const d of odd)
				assert.ok(o.stderr.includes(`${d}/.git: Read-only file system`), `${d}: ${o.stderr}`);
			const t = await sh(srv, tryAll(['wt/lib/m', 'wt']), { cwd: trees });
			assert.match(t.stderr, /wt\/lib\/m\/\.git: Read-only file system/);
			assert.match(t.stderr, /wt\/\.git: Read-only file system/);
		} finally {
			await srv.close();
		}
	});

	test('what a call writes into .git files and modules names nothing it may not change, and fails no call', async () => {
		const w = await scratch.ownedDir();
		await fsp.chmod(w, 0o755);
		// A module of x whose work tree is y, outside x: y's .git kept,
		// pinned from the root's top; a .git file naming ".." (git
		// refuses it) names nothing to keep.
		await fsp.mkdir(path.join(w, 'x', '.git', 'modules', 'm'), { recursive: true });
		await fsp.writeFile(path.join(w, 'x', '.git', 'HEAD'), 'ref: refs/heads/main\n');
		await fsp.writeFile(path.join(w, 'x', '.git', 'modules', 'm', 'config'),
		    '[core]\n\tworktree = ../../../../y\n');
		await fsp.mkdir(path.join(w, 'y', 'sub', '.git'), { recursive: true });
		await fsp.mkdir(path.join(w, 'z'));
		await fsp.writeFile(path.join(w, 'z', '.git'), 'gitdir: ..\n');
		await fsp.mkdir(path.join(w, 'other'));
		own(w);
		const srv = await shell([`allow write ${w}`, '[shell]', 'program sh']);
		try {
			const o = await sh(srv, 'echo x > other/f && echo ok; echo x > y/f && echo ok2', { cwd: w });
			assert.equal(o.stdout, 'ok\nok2\n', o.stderr);
		} finally {
			await srv.close();
		}
	});

	test('the user\'s own git configuration, where a writable directory holds it', async () => {
		const w = await scratch.ownedDir();
		await fsp.chmod(w, 0o755);
		const home = path.join(w, 'home');
		await fsp.mkdir(path.join(home, '.config', 'git'), { recursive: true });
		await fsp.writeFile(path.join(home, '.gitconfig'), '[user]\n');
		await fsp.writeFile(path.join(home, '.config', 'git', 'config'), '[core]\n');
		own(w);
		const srv = await shell([`allow write ${w}`, '[shell]', 'program sh', 'program mv'],
		    { env: { HOME: home, PATH: '/usr/bin:/bin' } });
		try {
			const o = await sh(srv, 'echo x >> home/.gitconfig; echo x >> home/.config/git/config; '
			    + 'mv home/.config home/c; mv home h; echo x > home/f; echo done', { cwd: w });
			assert.equal(o.stdout, 'done\n');
			assert.match(o.stderr, /home\/\.gitconfig: Read-only file system/);
			assert.match(o.stderr, /home\/\.config\/git\/config: Read-only file system/);
			assert.match(o.stderr, /cannot move 'home\/\.config' to 'home\/c': Device or resource busy/);
			assert.match(o.stderr, /cannot move 'home' to 'h': Device or resource busy/);
			assert.equal(readFileSync(path.join(home, '.gitconfig'), 'utf8'), '[user]\n');
			assert.equal(readFileSync(path.join(home, 'f'), 'utf8'), 'x\n');
		} finally {
			await srv.close();
		}
		// A configuration that is a link (a dotfiles checkout): its
		// target is kept.
		await fsp.mkdir(path.join(home, 'dotfiles'));
		await fsp.rename(path.join(home, '.gitconfig'), path.join(home, 'dotfiles', 'gitconfig'));
		await fsp.symlink('dotfiles/gitconfig', path.join(home, '.gitconfig'));
		own(w);
		const dot = await shell([`allow write ${w}`, '[shell]', 'program sh'], { env: { HOME: home, PATH: '/usr/bin:/bin' } });
		try {
			assert.match((await sh(dot, 'echo x >> home/dotfiles/gitconfig', { cwd: w })).stderr,
			    /home\/dotfiles\/gitconfig: Read-only file system/);
		} finally {
			await dot.close();
		}
		// HOME through a link, as git finds it; --check warns of a home
		// beneath a writable directory, whose other files are not kept.
		const link = path.join(scratch.root, `homelink-${path.basename(w)}`);
		await fsp.symlink(home, link);
		const lines = [`allow write ${w}`, '[shell]', 'program sh'];
		const chk = await runServer(['--policy', await scratch.policy(lines), '--check'], SHELL,
		    { HOME: link });
		assert.equal(chk.status, 0, chk.stderr);
		assert.match(chk.stderr, new RegExp(`your home ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} lies in .*, which is writable: the programs may change what your shell and programs read as they start`));
		assert.match(chk.stdout, /home\/dotfiles\/gitconfig {2}\(your git configuration\)/);
		const viaLink = await shell(lines, { env: { HOME: link, PATH: '/usr/bin:/bin' } });
		try {
			assert.match((await sh(viaLink, 'echo x >> home/.gitconfig', { cwd: w })).stderr,
			    /Read-only file system/);
		} finally {
			await viaLink.close();
		}
		// A client root that is the configuration's directory.
		const cr = await shell(lines, {
			env: { HOME: home, PATH: '/usr/bin:/bin' },
			capabilities: { roots: { listChanged: true } },
			handlers: [[ListRootsRequestSchema, async () => ({ roots: [{ uri: fileUri(path.join(home, '.config', 'git')) }] })]],
		});
		try {
			const o = await sh(cr, 'echo x >> config; echo x > new; echo done');
			assert.match(o.stderr, /config: Read-only file system/);
			assert.equal(readFileSync(path.join(home, '.config', 'git', 'config'), 'utf8'), '[core]\n');
		} finally {
			await cr.close();
		}
	});

	test('a client root inside a .git is read-only', async () => {
		const w = await world();
		const hooks = path.join(w, 'a', '.git', 'hooks');
		await fsp.mkdir(hooks, { recursive: true });
		own(w);
		const srv = await shell([`allow write ${w}`, '[shell]', 'program sh'], {
			capabilities: { roots: { listChanged: true } },
			handlers: [[ListRootsRequestSchema, async () => ({ roots: [{ uri: fileUri(hooks) },
			    { uri: fileUri(path.join(w, 'a', '.git')) }] })]],
		});
		try {
			const o = await sh(srv, 'echo x > pre-commit; echo x > ../config; echo done', { cwd: hooks });
			assert.equal(o.stdout, 'done\n');
			assert.match(o.stderr, /cannot create pre-commit: (Read-only file system|Permission denied)/);
			assert.match(o.stderr, /cannot create \.\.\/config: (Read-only file system|Permission denied)/);
			assert.equal(existsSync(path.join(hooks, 'pre-commit')), false);
		} finally {
			await srv.close();
		}
	});
});

describe('repositories writable', { skip: !existsSync(SHELL) && `${SHELL} is not built` }, () => {
	test('gives .git back to calls, and --check warns of it', async () => {
		const w = await world();
		const lines = [`allow write ${w}`, '[shell]', 'program sh', 'repositories writable'];
		const chk = await runServer(['--policy', await scratch.policy(lines), '--check'], SHELL);
		assert.equal(chk.status, 0, chk.stderr);
		assert.match(chk.stderr, /is writable, and 'repositories writable' lets the programs change the hooks and configuration of the git repositories in it \(\.git, [ab]\/\.git, [ab]\/\.git\)/);
		assert.match(chk.stdout, /^repositories: writable {2}\(line 4\)/m);
		const srv = await shell(lines);
		try {
			const o = await sh(srv, 'echo "# t" >> a/.git/config && echo ok');
			assert.equal(o.stdout, 'ok\n', o.stderr);
			assert.match(readFileSync(path.join(w, 'a', '.git', 'config'), 'utf8'), /# t\n$/);
		} finally {
			await srv.close();
		}
	});

	test('read-only by default: --check lists what calls cannot change, and warns of nothing', async () => {
		const w = await world();
		const chk = await runServer(['--policy', await scratch.policy([`allow write ${w}`, '[shell]', 'program sh']),
		    '--check'], SHELL);
		assert.equal(chk.status, 0, chk.stderr);
		assert.doesNotMatch(chk.stderr, /repositor/, chk.stderr);
		assert.match(chk.stdout, /^repositories: read-only {2}\(default\)/m);
		assert.match(chk.stdout, new RegExp(`^ {2}${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\.git, [ab]/\\.git, [ab]/\\.git$`, 'm'));
	});

	test('more repositories than a child binds while it runs: calls fail closed, and run again once fewer', async () => {
		const w = await scratch.ownedDir();
		await fsp.chmod(w, 0o755);
		for (let i = 0; i < 250; i++)
			await fsp.mkdir(path.join(w, `r${i}`, '.git'), { recursive: true });
		own(w);
		const srv = await shell([`allow write ${w}`, '[shell]', 'program sh']);
		try {
			assert.equal((await sh(srv, 'echo x > r1/.git/f; echo ok')).stdout, 'ok\n');
			for (let i = 250; i < 260; i++)
				await fsp.mkdir(path.join(w, `r${i}`, '.git'), { recursive: true });
			own(w);
			const r = await call(srv, 'run_command', { argv: ['sh', '-c', 'echo x > r1/.git/f; echo ran'] });
			assert.equal(r.isError, true, JSON.stringify(r));
			assert.match(textOf(r), /could not make read-only what calls may not change beneath the writable directories/);
			assert.equal(existsSync(path.join(w, 'r1', '.git', 'f')), false);
			for (let i = 250; i < 260; i++)
				await fsp.rm(path.join(w, `r${i}`), { recursive: true });
			const o = await sh(srv, 'echo x > r1/.git/f; echo ran');
			assert.equal(o.stdout, 'ran\n');
			assert.match(o.stderr, /Read-only file system/);
		} finally {
			await srv.close();
		}
	});

	test('a submodule a child cannot follow: refused at start, never skipped', async () => {
		// Modules nested past 32 directories, a configuration past 64K,
		// one git itself would not read: each would leave a submodule
		// writable if skipped.
		const cases = [
			['nested', (g) => path.join(g, 'modules', ...Array(34).fill('n')), null,
			    /submodules nested too deep to follow/],
			['large', (g) => path.join(g, 'modules', 'm'), `[core]\n\tworktree = ../../../m\n#${'x'.repeat(70000)}\n`,
			    /a git configuration larger than 64K/],
			['unread', (g) => path.join(g, 'modules', 'm'), '[core]\n\tworktree = "../../../m\n',
			    /a git configuration git itself would not read/],
		];
		for (const [what, dir, config, says] of cases) {
			const w = await scratch.ownedDir();
			await fsp.chmod(w, 0o755);
			const g = path.join(w, 'r', '.git');
			await fsp.mkdir(dir(g), { recursive: true });
			await fsp.writeFile(path.join(g, 'HEAD'), 'ref: refs/heads/main\n');
			if (config !== null)
				await fsp.writeFile(path.join(dir(g), 'config'), config);
			own(w);
			const r = await runServer(['--policy', await scratch.policy([`allow write ${w}`, '[shell]',
			    'program sh']), '--check'], SHELL);
			assert.equal(r.status, 1, `${what}: ${r.stderr}`);
			assert.match(r.stderr, new RegExp(`error: cannot keep \\.git read-only beneath the writable directories, as each call's child would: ${says.source}`), what);
		}
	});

	test('more repositories than a child binds: refused at start, saying how to go on', async () => {
		const w = await scratch.ownedDir();
		await fsp.chmod(w, 0o755);
		for (let i = 0; i < 257; i++)
			await fsp.mkdir(path.join(w, `r${i}`, '.git'), { recursive: true });
		own(w);
		const r = await runServer(['--policy', await scratch.policy([`allow write ${w}`, '[shell]', 'program sh']),
		    '--check'], SHELL);
		assert.equal(r.status, 1, r.stderr);
		assert.match(r.stderr, /error: cannot keep \.git read-only beneath the writable directories, as each call's child would: more to keep than a child binds \(512 mounts, about 256 repositories\): give write access to fewer, or remove the \.git directories you did not make; 'repositories writable' in the policy's \[shell\] section runs without it/);
	});
});
