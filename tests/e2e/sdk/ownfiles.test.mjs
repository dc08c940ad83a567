// ownfiles.test.mjs: the server's own files (the policy file, the consent
// hook and the interpreter its '#!' line names, the audit log with its
// rotated files and its directory, the audit key) are out of every call's
// reach.
//
//  - Beneath a writable directory, at any depth or through a symbolic link
//    there, any of them refuses the start, and --check says the same: one
//    line naming the file, the directory and why.
//  - Beneath a read-only directory they are served around: refused by path,
//    through a symbolic link, through a hard link (made here, outside the
//    server), after their directory is renamed, for every tool and for
//    resources/read; left out of listings, walks and searches.
//  - The consent hook runs from the file opened and checked at start: a
//    program put at its path afterwards is never run.
//
// With TOOLCELL_AS=nobody the server runs as nobody: the log's directory,
// the key and the writable directory belong to it, the rest to us.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import {
	CALL_TIMEOUT, REPO, call, entryName, fileUri, makeScratch, makeTree, runAs, runServer,
	secretToken, serverIds, startServer, textOf, transcript,
} from './lib.mjs';

const base = await makeScratch('own');	// policies, hooks, logs outside any root
const { policy, ownedDir } = base;
after(() => base.cleanup());

/* Tokens in the own files: none may ever reach the client. */
const KEY = secretToken();
const POLICY_TOKEN = secretToken();
const HOOK_TOKEN = secretToken();
const LOG_TOKEN = secretToken();

/* How a refusal of an own file reads (the path given comes first). */
const OWN = /denied: it is the server's own (policy file|consent hook|consent hook's interpreter|audit log|audit log directory|audit key), which no call may read, list or change/;

/* Asserts |r| is a tool error refusing an own file; returns its text. */
function refused(r, what, kind) {
	assert.equal(r.isError, true, `${what}: expected a refusal, got ${JSON.stringify(r)}`);
	const t = textOf(r);
	assert.match(t, OWN, what);
	if (kind !== undefined)
		assert.ok(t.includes(`the server's own ${kind},`), `${what}: ${t}`);
	return t;
}

/* Writes the shell script |body| as an executable file at |p|. */
async function script(p, body) {
	await fsp.writeFile(p, `#!/bin/sh\n${body}\n`);
	await fsp.chmod(p, 0o755);
	return p;
}

/* A 32-byte key file at |p|, 0600, owned by the server's user. */
async function keyFile(p) {
	await fsp.writeFile(p, `${KEY.slice(0, 40).padEnd(40, 'k')}\n`, { mode: 0o600 });
	const { uid, gid } = serverIds();
	await fsp.chown(p, uid, gid);
	return p;
}

/* Gives |p| (not following a link) to the server's user. */
function giveToServer(...p) {
	const as = runAs();
	if (as)
		execFileSync('chown', ['-h', `${as.uid}:${as.gid}`, ...p]);
}

/* Runs the server with |args| and expects the start refused for |lines|. */
async function noStart(args, lines, what) {
	for (const check of [false, true]) {
		const r = await runServer(check ? [...args, '--check'] : args);
		const how = `${what}${check ? ' (--check)' : ''}`;
		assert.notEqual(r.status, 0, `${how}: it started: ${r.stderr}`);
		assert.equal(r.stdout, '', how);
		// Warnings (a directory given twice, one that calls cannot
		// write in) are not what refuses the start.
		const got = r.stderr.split('\n').filter((l) => l !== ''
		    && !l.startsWith('toolcell-fs: warning: '));
		assert.deepEqual(got.slice(0, -1), lines.map((l) => `toolcell-fs: error: ${l}`), how);
		assert.match(got.at(-1), /^toolcell-fs: \d+ errors?/, how);
	}
}

/* What refuses the start: |file| of |kind| beneath the writable |root|. */
function beneath(kind, file, root, origin, link) {
	const where = link ? `the symbolic link '${link}' on the way to it lies` : 'it lies';
	return `${kind} '${file}': ${where} beneath the writable directory '${root}' (${origin}): `
	    + 'a call could change or replace it, or rename a directory above it and put another '
	    + 'file in its place; keep it outside every writable directory';
}

// -------------------------------------------------------------------------

describe('beneath a writable directory: the server does not start', () => {
	let W;
	let pre;	// an audit log for the cases that need one, outside W

	before(async () => {
		W = await makeTree({ 'a.txt': 'alpha\n' });
		pre = await ownedDir();
	});
	after(async () => {
		await W?.cleanup();
	});

	test('the policy file itself (the issue: rewritten for the next start)', async () => {
		const p = W.p('fs.policy');
		await fsp.writeFile(p, `allow write ${W.root}\n`);
		await noStart(['--policy', p],
		    [beneath('policy file', p, W.root, 'policy line 1')], 'policy in W');
		// The same with the directory writable from the command line.
		const q = W.p('ro.policy');
		await fsp.writeFile(q, `allow read ${W.root}\n`);
		await noStart(['--policy', q, '--write', W.root],
		    [beneath('policy file', q, W.root, 'command line')], 'policy in W, -w');
	});

	test('the consent hook (the issue: rewritten, then run unconfined)', async () => {
		await fsp.mkdir(W.p('hooks'), { recursive: true });
		const h = await script(W.p('hooks/ask'), 'exit 0');
		const p = await policy([`allow write ${W.root}`, 'consent write_file',
		    `consent-hook ${h}`]);
		await noStart(['--policy', p], [beneath('consent hook', h, W.root, 'policy line 1')],
		    'hook in W');
	});

	test('the interpreter a hook script names', async () => {
		await fsp.mkdir(W.p('bin'), { recursive: true });
		const sh = W.p('bin/sh');
		await fsp.copyFile('/bin/sh', sh);
		await fsp.chmod(sh, 0o755);
		const h = base.unique('hook');
		await fsp.writeFile(h, `#!${sh}\nexit 0\n`);
		await fsp.chmod(h, 0o755);
		const p = await policy([`allow write ${W.root}`, 'consent write_file',
		    `consent-hook ${h}`]);
		await noStart(['--policy', p],
		    [beneath("consent hook's interpreter", sh, W.root, 'policy line 1')],
		    'interpreter in W');
	});

	test('the audit key, and the audit log with its directory', async () => {
		await fsp.mkdir(W.p('keys'), { recursive: true });
		const k = await keyFile(W.p('keys/k'));
		const log = path.join(pre, 'a.log');
		const p = await policy([`allow write ${W.root}`, `audit ${log}`, `audit-key ${k}`]);
		await noStart(['--policy', p], [beneath('audit key', k, W.root, 'policy line 1')],
		    'key in W');
		await fsp.mkdir(W.p('logs'), { recursive: true });
		giveToServer(W.p('logs'));
		const l2 = W.p('logs/fs.log');
		const p2 = await policy([`allow write ${W.root}`, `audit ${l2}`]);
		await noStart(['--policy', p2], [beneath('audit log', l2, W.root, 'policy line 1')],
		    'log in W');
	});

	test('at any depth: beneath a read-only directory nested in a writable one', async () => {
		await fsp.mkdir(W.p('ro/deep/er'), { recursive: true });
		const k = await keyFile(W.p('ro/deep/er/k'));
		const log = path.join(pre, 'b.log');
		const p = await policy([`allow write ${W.root}`, `allow read ${W.p('ro')}`,
		    `audit ${log}`, `audit-key ${k}`]);
		await noStart(['--policy', p], [beneath('audit key', k, W.root, 'policy line 1')],
		    'key deep in W');
	});

	test('through a symbolic link in a writable directory', async () => {
		const real = await script(base.unique('hook'), 'exit 0');
		await fsp.symlink(real, W.p('hook-link'));
		const p = await policy([`allow write ${W.root}`, 'consent write_file',
		    `consent-hook ${W.p('hook-link')}`]);
		await noStart(['--policy', p], [beneath('consent hook', W.p('hook-link'), W.root,
		    'policy line 1', W.p('hook-link'))], 'hook through a link in W');
	});

	test('every file at fault is named, one line each', async () => {
		const h = await script(W.p('hook2'), 'exit 0');
		const k = await keyFile(W.p('k2'));
		const log = path.join(pre, 'c.log');
		const p = W.p('all.policy');
		await fsp.writeFile(p, [`allow write ${W.root}`, 'consent write_file',
		    `consent-hook ${h}`, `audit ${log}`, `audit-key ${k}`].join('\n') + '\n');
		await noStart(['--policy', p], [
			beneath('policy file', p, W.root, 'policy line 1'),
			beneath('consent hook', h, W.root, 'policy line 1'),
			beneath('audit key', k, W.root, 'policy line 1'),
		], 'three in W');
	});
});

// -------------------------------------------------------------------------

describe('beneath a read-only directory: served, and refused', () => {
	let R;		// read-only: the own files live here
	let W;		// writable: hard links to them
	let srv;
	let pol, hook, key, log, logdir;
	let out;	// what the hook writes

	/* The own files by their path in R, with the kind each is refused as. */
	const own = () => [
		[pol, 'policy file'], [hook, 'consent hook'], [key, 'audit key'],
		[log, 'audit log'], [`${log}.1`, 'audit log'],
	];

	before(async () => {
		R = await makeTree({ 'a.txt': 'alpha\n', 'conf/x.txt': 'x\n' });
		await fsp.mkdir(R.p('hooks'));
		await fsp.chmod(R.p('hooks'), 0o755);
		await fsp.mkdir(R.p('keys'));
		await fsp.chmod(R.p('keys'), 0o755);
		await fsp.mkdir(R.p('logs'));
		await fsp.chmod(R.p('logs'), 0o700);
		giveToServer(R.p('logs'));
		out = await ownedDir();
		hook = await script(R.p('hooks/ask'), `# ${HOOK_TOKEN}\necho ask >> "${out}/asked"\nexit 0`);
		key = await keyFile(R.p('keys/audit-key'));
		logdir = R.p('logs');
		log = R.p('logs/fs.log');
		W = await makeTree({ 'b.txt': 'bravo\n' });
		giveToServer(W.root, W.p('b.txt'));
		pol = R.p('conf/fs.policy');
		await fsp.writeFile(pol, [`# ${POLICY_TOKEN}`, `allow read ${R.root}`,
		    `allow write ${W.root}`, 'consent get_file_info', 'consent-by hook',
		    `consent-hook ${hook}`, `audit ${log}`, `audit-key ${key}`].join('\n') + '\n');
		// An earlier session's log, set aside as a rotation does.
		const first = await startServer(['--policy', pol]);
		await call(first, 'read_text_file', { path: 'a.txt' });
		await first.close();
		await fsp.rename(log, `${log}.1`);
		// Links to them: symbolic ones in R, hard ones in W (made by us,
		// as the user could; the server never can).
		for (const [f, n] of [[pol, 'pol'], [hook, 'hook'], [key, 'key'], [`${log}.1`, 'log1']]) {
			await fsp.symlink(path.relative(R.root, f), R.p(`link-${n}`));
			await fsp.link(f, W.p(`hl-${n}`));
		}
		await fsp.symlink('logs', R.p('link-logs'));
		srv = await startServer(['--policy', pol]);
		// The log of this session, written with a token in it.
		const r = await call(srv, 'read_text_file', { path: 'a.txt' });
		assert.equal(r.isError, undefined, JSON.stringify(r));
		await call(srv, 'search_files', { path: '.', pattern: LOG_TOKEN });
		await fsp.link(log, W.p('hl-log'));
	});

	after(async () => {
		try {
			await srv?.close();
		} finally {
			await R?.cleanup();
			await W?.cleanup();
		}
	});

	test('the server started, and serves the rest', async () => {
		const r = await call(srv, 'read_text_file', { path: R.p('conf/x.txt') });
		assert.equal(r.structuredContent.content, 'x\n');
	});

	test('by path: every reading tool refuses each', async () => {
		for (const [f, kind] of own()) {
			for (const tool of ['read_text_file', 'read_file', 'read_media_file'])
				refused(await call(srv, tool, { path: f }), `${tool} ${f}`, kind);
			refused(await call(srv, 'get_file_info', { path: path.relative(R.root, f) }),
			    `get_file_info ${f}`, kind);
			const m = await call(srv, 'read_multiple_files', { paths: [f, R.p('a.txt')] });
			const t = textOf(m);
			assert.match(t, OWN, `read_multiple_files ${f}`);
			assert.ok(t.includes('alpha'), `read_multiple_files ${f}: the other file`);
		}
	});

	test('the log directory: not listed, not walked into', async () => {
		for (const tool of ['list_directory', 'list_directory_with_sizes', 'directory_tree'])
			refused(await call(srv, tool, { path: logdir }), `${tool} logs`,
			    'audit log directory');
		refused(await call(srv, 'search_files', { path: logdir, pattern: '*' }),
		    'search_files logs', 'audit log directory');
		refused(await call(srv, 'search_file_contents', { path: logdir, pattern: 'seq' }),
		    'search_file_contents logs', 'audit log directory');
	});

	test('through a symbolic link', async () => {
		for (const n of ['pol', 'hook', 'key', 'log1'])
			refused(await call(srv, 'read_text_file', { path: R.p(`link-${n}`) }), `link-${n}`);
		refused(await call(srv, 'read_text_file', { path: R.p('link-logs/fs.log') }),
		    'link-logs/fs.log', 'audit log');
		refused(await call(srv, 'list_directory', { path: R.p('link-logs') }), 'link-logs',
		    'audit log directory');
	});

	test('through a hard link in a writable directory: read, write, move, delete', async () => {
		for (const n of ['pol', 'hook', 'key', 'log1', 'log']) {
			const p = W.p(`hl-${n}`);
			for (const tool of ['read_text_file', 'read_media_file', 'get_file_info'])
				refused(await call(srv, tool, { path: p }), `${tool} hl-${n}`);
			refused(await call(srv, 'write_file', { path: p, content: '' }), `write hl-${n}`);
			refused(await call(srv, 'edit_file', { path: p, edits: [{ oldText: 'a',
			    newText: 'b' }] }), `edit hl-${n}`);
			refused(await call(srv, 'move_file', { source: p, destination: W.p(`m-${n}`) }),
			    `move hl-${n}`);
			refused(await call(srv, 'delete_file', { path: p }), `delete hl-${n}`);
			await fsp.lstat(p);	// still there
		}
		assert.equal((await fsp.readFile(key, 'utf8')).slice(0, 40), KEY.slice(0, 40));
		assert.ok((await fsp.stat(log)).size > 0, 'the log was emptied');
	});

	test('listings, walks and searches leave them out', async () => {
		const shown = (r) => JSON.stringify(r.structuredContent ?? textOf(r));
		const names = ['fs.policy', 'ask', 'audit-key', 'fs.log', 'hl-'];
		for (const [dir, tool, args] of [
			[R.p('conf'), 'list_directory', {}], [R.p('hooks'), 'list_directory', {}],
			[R.p('keys'), 'list_directory_with_sizes', {}], [W.root, 'list_directory', {}],
			[R.root, 'directory_tree', {}], [W.root, 'directory_tree', {}],
			[R.root, 'search_files', { pattern: '*' }], [W.root, 'search_files', { pattern: '*' }],
		]) {
			const r = await call(srv, tool, { path: dir, ...args });
			assert.notEqual(r.isError, true, `${tool} ${dir}: ${JSON.stringify(r)}`);
			const s = shown(r);
			for (const n of names)
				assert.ok(!s.includes(n), `${tool} ${dir} shows ${n}: ${s}`);
			if (dir === R.root)
				assert.ok(!/"logs"|\/logs"|logs\//.test(s), `${tool} shows logs: ${s}`);
		}
		const l = await call(srv, 'list_directory', { path: R.root });
		assert.deepEqual(l.structuredContent.entries.map(entryName).sort(),
		    ['a.txt', 'conf', 'hooks', 'keys', 'link-hook', 'link-key', 'link-log1',
			'link-logs', 'link-pol']);
		for (const [dir, tok] of [[R.root, KEY.slice(0, 40)], [W.root, KEY.slice(0, 40)],
		    [R.root, POLICY_TOKEN], [W.root, HOOK_TOKEN], [R.root, LOG_TOKEN],
		    [W.root, LOG_TOKEN]]) {
			const r = await call(srv, 'search_file_contents', { path: dir, pattern: tok });
			assert.ok(!shown(r).includes(tok), `search_file_contents ${dir}: ${shown(r)}`);
		}
	});

	test('resources/read refuses each', async () => {
		for (const f of [pol, hook, key, log, W.p('hl-key'), R.p('link-key')]) {
			let e;
			try {
				e = await srv.client.readResource({ uri: fileUri(f) }, { timeout: CALL_TIMEOUT });
			} catch (x) {
				e = x;
			}
			assert.ok(e instanceof Error, `${f}: read ${JSON.stringify(e)}`);
			assert.match(e.message, OWN, f);
		}
	});

	test('the consent hook, run from R, still answers', async () => {
		const r = await call(srv, 'get_file_info', { path: R.p('a.txt') });
		assert.notEqual(r.isError, true, JSON.stringify(r));
		assert.ok((await fsp.readFile(path.join(out, 'asked'), 'utf8')).includes('ask'));
	});

	test('rotated during the session: the new log and the old one refused', async () => {
		// audit-rotate: a second server on another log directory in R.
		const d2 = R.p('logs2');
		await fsp.mkdir(d2);
		await fsp.chmod(d2, 0o700);
		giveToServer(d2);
		const l2 = path.join(d2, 'r.log');
		const p = await policy([`allow read ${R.root}`, `audit ${l2}`, 'audit-rotate 64K keep 2',
		    'audit-sync none']);
		const s2 = await startServer(['--policy', p]);
		try {
			const long = `${'conf/../'.repeat(40)}a.txt`;
			for (let i = 0; i < 120; i++) {
				const r = await call(s2, 'read_text_file', { path: long });
				assert.equal(r.structuredContent.content, 'alpha\n');
			}
			await fsp.stat(`${l2}.1`);	// it rotated
			for (const f of [l2, `${l2}.1`])
				refused(await call(s2, 'read_text_file', { path: f }), f, 'audit log');
			refused(await call(s2, 'list_directory', { path: d2 }), 'logs2',
			    'audit log directory');
			const t = await call(s2, 'directory_tree', { path: R.root });
			assert.ok(!JSON.stringify(t.structuredContent).includes('logs2'));
		} finally {
			await s2.close();
		}
	});

	test('after their directories are renamed (by the user, outside the server)', async () => {
		await fsp.rename(R.p('keys'), R.p('keys-moved'));
		await fsp.rename(R.p('conf'), R.p('conf-moved'));
		await fsp.rename(R.p('hooks'), R.p('hooks-moved'));
		try {
			for (const [f, kind] of [['keys-moved/audit-key', 'audit key'],
			    ['conf-moved/fs.policy', 'policy file'], ['hooks-moved/ask', 'consent hook']]) {
				refused(await call(srv, 'read_text_file', { path: R.p(f) }), f, kind);
				const l = await call(srv, 'list_directory', { path: path.dirname(R.p(f)) });
				assert.ok(!JSON.stringify(l.structuredContent).includes(path.basename(f)), f);
			}
		} finally {
			await fsp.rename(R.p('keys-moved'), R.p('keys'));
			await fsp.rename(R.p('conf-moved'), R.p('conf'));
			await fsp.rename(R.p('hooks-moved'), R.p('hooks'));
		}
	});

	test('mounted into a writable directory under another name', async (t) => {
		if (process.getuid() !== 0) {
			t.skip('mounting needs root (the test runs the server in a mount '
			    + 'namespace of its own)');
			return;
		}
		const d3 = R.p('logs3');
		await fsp.mkdir(d3);
		await fsp.chmod(d3, 0o700);
		giveToServer(d3);
		const M = await makeTree({ 'c.txt': 'charlie\n' });
		await fsp.mkdir(M.p('mnt'));
		giveToServer(M.root, M.p('c.txt'), M.p('mnt'));
		const p = await policy([`allow read ${R.root}`, `allow write ${M.root}`,
		    `audit ${path.join(d3, 'm.log')}`]);
		// The server alone sees the log's directory at M/mnt.
		const s3 = await startServer(['--policy', p], { wrap: ['unshare', '-m',
		    '--propagation', 'private', 'sh', '-c',
		    'mount --bind "$0" "$1" && shift && exec "$@"', d3, M.p('mnt')] });
		try {
			await call(s3, 'read_text_file', { path: R.p('a.txt') });
			// Made after the start, as a rotated file would be: the
			// directory is refused, so nothing in it is shown.
			await fsp.writeFile(path.join(d3, 'm.log.9'), '"seq" later\n');
			const m = M.p('mnt');
			for (const [tool, args] of [['list_directory', { path: m }],
			    ['read_text_file', { path: `${m}/m.log` }],
			    ['write_file', { path: `${m}/new.txt`, content: 'x' }],
			    ['create_directory', { path: `${m}/sub` }]])
				refused(await call(s3, tool, args), `${tool} ${JSON.stringify(args)}`);
			for (const [tool, args] of [['directory_tree', { path: M.root }],
			    ['search_files', { path: M.root, pattern: '*.log*' }],
			    ['search_file_contents', { path: M.root, pattern: 'seq' }]]) {
				const r = await call(s3, tool, args);
				assert.notEqual(r.isError, true, `${tool}: ${JSON.stringify(r)}`);
				const shown = JSON.stringify(r.structuredContent);
				assert.ok(!shown.includes('m.log') && !shown.includes('seq'),
				    `${tool}: ${shown}`);
			}
		} finally {
			await s3.close();
			await M.cleanup();
		}
		assert.deepEqual((await fsp.readdir(d3)).sort(), ['m.log', 'm.log.9']);
	});

	test('nothing of any of them ever reached the client', () => {
		const all = transcript(srv);
		for (const t of [KEY.slice(0, 40), POLICY_TOKEN, HOOK_TOKEN])
			assert.ok(!all.includes(t), `the client got ${t}`);
	});
});

// -------------------------------------------------------------------------

describe('the consent hook runs from the file checked at start', () => {
	let T;
	let out;

	before(async () => {
		T = await makeTree({ 'a.txt': 'alpha\n' });
		out = await ownedDir();
	});
	after(async () => {
		await T?.cleanup();
	});

	/* A policy asking |hook| before read_text_file. */
	const withHook = (h) => policy([`allow read ${T.root}`, 'consent read_text_file',
	    'consent-by hook', `consent-hook ${h}`]);

	/* Asserts |r| is the refusal of a hook |h| that was replaced. */
	function replaced(r, h) {
		assert.equal(r.isError, true, JSON.stringify(r));
		assert.equal(textOf(r), `The call was not run: consent hook '${h}' is no longer the `
		    + 'file the server checked at start (another file is at its path): it was replaced '
		    + 'or moved; restart the server to use the new one, which counts as no. (Policy '
		    + "rule 'consent read_text_file (line 2)' asks a person before this call.)");
	}

	test('a script runs from the file opened at start; another put at its path never runs',
	    async () => {
		const dir = base.unique('hooks');
		await fsp.mkdir(dir);
		await fsp.chmod(dir, 0o755);
		const log = path.join(out, 's');
		const h = await script(path.join(dir, 'ask'), `echo "orig $0 $1" >> "${log}"\nexit 0`);
		const srv = await startServer(['--policy', await withHook(`${h} one`)]);
		try {
			let r = await call(srv, 'read_text_file', { path: 'a.txt' });
			assert.equal(r.structuredContent?.content, 'alpha\n', JSON.stringify(r));
			// Its interpreter read it from the fd: $0 names that.
			assert.match(await fsp.readFile(log, 'utf8'), /^orig \/dev\/fd\/\d+ one\n$/);
			const evil = await script(path.join(dir, 'evil'), `echo evil >> "${log}"\nexit 0`);
			await fsp.rename(evil, h);
			replaced(await call(srv, 'read_text_file', { path: 'a.txt' }), h);
			// A directory above it renamed, and another file put there.
			await fsp.rename(dir, `${dir}-old`);
			await fsp.mkdir(dir);
			await script(h, `echo evil2 >> "${log}"\nexit 0`);
			replaced(await call(srv, 'read_text_file', { path: 'a.txt' }), h);
			assert.match(await fsp.readFile(log, 'utf8'), /^orig \/dev\/fd\/\d+ one\n$/);
		} finally {
			await srv.close();
		}
	});

	test('a program runs from the file opened at start; another put at its path never runs',
	    async () => {
		const dir = base.unique('hooks');
		await fsp.mkdir(dir);
		await fsp.chmod(dir, 0o755);
		const h = path.join(dir, 'yes');
		await fsp.copyFile('/bin/true', h);
		await fsp.chmod(h, 0o755);
		const srv = await startServer(['--policy', await withHook(h)]);
		try {
			const r = await call(srv, 'read_text_file', { path: 'a.txt' });
			assert.equal(r.structuredContent?.content, 'alpha\n', JSON.stringify(r));
			// /bin/false would deny, saying so; it is never run.
			const no = path.join(dir, 'no');
			await fsp.copyFile('/bin/false', no);
			await fsp.chmod(no, 0o755);
			await fsp.rename(no, h);
			replaced(await call(srv, 'read_text_file', { path: 'a.txt' }), h);
		} finally {
			await srv.close();
		}
	});

	test('a hook shipped in policy/hooks (a script reading the call)', async () => {
		const h = base.unique('allow-read-only');
		await fsp.copyFile(path.join(REPO, 'policy/hooks/allow-read-only'), h);
		await fsp.chmod(h, 0o755);
		const p = await policy([`allow read ${T.root}`, 'consent *', 'consent-by hook',
		    `consent-hook ${h}`]);
		const srv = await startServer(['--policy', p]);
		try {
			const r = await call(srv, 'read_text_file', { path: 'a.txt' });
			assert.equal(r.structuredContent?.content, 'alpha\n', JSON.stringify(r));
		} finally {
			await srv.close();
		}
	});
});
