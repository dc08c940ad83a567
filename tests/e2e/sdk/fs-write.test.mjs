// fs-write.test.mjs: toolcell-fs's write tools (write_file, edit_file,
// create_directory, move_file, delete_file) through the official MCP
// client: every tool and option, refusals under read-only directories and
// the tools hidden without a writable one, the EscapeRoute cases against
// every write tool (.., absolute paths outside, a prefix twin, symlinks out
// at the target and as the parent, dangling symlinks, /proc/self/root, a
// hard link to a file outside, a symlink swapped in during writes), deny
// rules, concurrent writers, a write killed mid-way, a symlink put at the
// last name between a call's checks and its change, and the undo of a
// directory move that a denied entry appeared in.
//
// With TOOLCELL_AS=nobody the server runs as nobody: the directories it
// writes to are given to nobody (chown -hR), while the files outside stay
// root's, as do the policy and the hard link made to an outside file.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { McpError } from '@modelcontextprotocol/sdk/types.js';

import {
	call, dir, fifo, makeTree, runAs, secretToken, startServer, symlink,
	textOf,
} from './lib.mjs';

const WRITE_TOOLS = ['write_file', 'edit_file', 'create_directory', 'move_file', 'delete_file'];
const SECRET = `${secretToken()}\n`;
const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');

/* Asserts |r| succeeded; returns its structuredContent. */
function ok(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	assert.equal(typeof r.structuredContent, 'object', `${what}: no structuredContent`);
	textOf(r);
	return r.structuredContent;
}

/* Asserts |r| is a tool error; returns its text. */
function err(r, what) {
	assert.equal(r.isError, true, `${what}: expected isError, got ${JSON.stringify(r)}`);
	assert.equal(r.structuredContent, undefined, `${what}: error with structuredContent`);
	return textOf(r);
}

/* makeTree(), then given to the server's user when that is not us. */
async function ownTree(spec) {
	const t = await makeTree(spec);
	const as = runAs();
	if (as)
		execFileSync('chown', ['-hR', `${as.uid}:${as.gid}`, t.root]);
	return t;
}

const read = (p) => fsp.readFile(p, 'utf8');
const exists = (p) => fsp.lstat(p).then(() => true, () => false);

let W;		// read-write, the first directory
let W2;		// read-write
let R;		// read-only
let O;		// outside every directory
let twin;	// W's prefix twin: W.root + '-evil'
let base;	// the policy
let srv;
let outsideBefore;

/* What is outside: its names and contents. */
async function outsideState() {
	const names = (await fsp.readdir(O.root)).sort();
	const out = {};
	for (const n of names) {
		const st = await fsp.lstat(O.p(n));
		out[n] = st.isFile() ? await read(O.p(n)) : st.isDirectory() ? '[dir]' : '[other]';
	}
	out['twin'] = (await fsp.readdir(twin)).sort().join(',');
	return out;
}

async function assertOutsideIntact(what) {
	assert.deepEqual(await outsideState(), outsideBefore, `${what}: something outside changed`);
}

before(async () => {
	O = await makeTree({ 'secret.txt': SECRET, 'f.txt': 'outside\n', 'sub/s.txt': SECRET });
	W = await ownTree({
		'a.txt': 'alpha\n',
		'ten.txt': TEN,
		'sub/inner.txt': 'inner\n',
		'fifo': fifo(),
		'drafts/d.txt': 'draft\n',
		'.git/config': '[core]\n',
		'.git/hooks/pre-commit': '#!/bin/sh\n',
		'.env': SECRET,
		'hooklink': symlink('.git/hooks'),
		'link-abs': symlink(O.p('secret.txt')),
		'dirlink': symlink(O.root),
		'dirlink-rel': symlink(`../${path.basename(O.root)}`),
		'dangling': symlink(O.p('new-file.txt')),
		'dangling-rel': symlink(`../${path.basename(O.root)}/new-rel.txt`),
		'proc': symlink('/proc/self/root'),
	});
	// A relative link to the outside secret, from the top of W.
	await fsp.symlink(path.relative(W.root, O.p('secret.txt')), W.p('link-rel'));
	if (runAs())
		execFileSync('chown', ['-h', `${runAs().uid}:${runAs().gid}`, W.p('link-rel')]);
	W2 = await ownTree({ 'b.txt': 'bravo\n' });
	R = await makeTree({ 'r.txt': 'read only\n', 'rsub/x.txt': 'x\n' });
	twin = `${W.root}-evil`;
	await fsp.mkdir(twin);
	await fsp.chmod(twin, 0o777);
	await fsp.writeFile(path.join(twin, 'victim.txt'), 'twin\n');
	base = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-wpol-'));
	await fsp.chmod(base, 0o755);
	const pol = path.join(base, 'w.policy');
	await fsp.writeFile(pol, [
		`allow write ${W.root}`,
		`allow write ${W2.root}`,
		`allow read ${R.root}`,
		'deny write drafts',
		'deny write **/*.lock',
	].join('\n') + '\n');
	await fsp.chmod(pol, 0o644);
	srv = await startServer(['--policy', pol]);
	outsideBefore = await outsideState();
});

after(async () => {
	await srv?.close();
	for (const t of [W, W2, R, O])
		await t?.cleanup();
	if (twin)
		await fsp.rm(twin, { recursive: true, force: true });
	if (base)
		await fsp.rm(base, { recursive: true, force: true });
});

describe('tools/list', () => {
	test('the write tools are listed with a writable directory, with truthful annotations', async () => {
		const { tools } = await srv.client.listTools();
		const by = Object.fromEntries(tools.map((t) => [t.name, t]));
		for (const n of WRITE_TOOLS) {
			assert.ok(by[n], `${n} not listed`);
			assert.equal(by[n].annotations.readOnlyHint, false, n);
			assert.equal(by[n].annotations.openWorldHint, false, n);
			assert.equal(typeof by[n].outputSchema, 'object', n);
		}
		const hints = (n) => [by[n].annotations.destructiveHint, by[n].annotations.idempotentHint];
		assert.deepEqual(hints('write_file'), [true, true]);
		assert.deepEqual(hints('edit_file'), [true, false]);
		assert.deepEqual(hints('create_directory'), [false, true]);
		assert.deepEqual(hints('move_file'), [true, false]);
		assert.deepEqual(hints('delete_file'), [true, false]);
		assert.deepEqual(by.write_file.inputSchema.properties.encoding.enum, ['utf8', 'base64']);
		assert.deepEqual(by.edit_file.inputSchema.properties.edits.items.required, ['oldText', 'newText']);
		assert.deepEqual(by.move_file.inputSchema.required, ['source', 'destination']);
	});

	test('without a writable directory they are not listed, and calling one says why', async () => {
		const ro = await startServer([R.root]);
		try {
			const { tools } = await ro.client.listTools();
			const names = tools.map((t) => t.name);
			for (const n of WRITE_TOOLS)
				assert.ok(!names.includes(n), `${n} listed without a writable directory`);
			await assert.rejects(call(ro, 'write_file', { path: 'x', content: 'y' }), (e) => {
				assert.ok(e instanceof McpError, String(e));
				assert.equal(e.code, -32602);
				assert.match(e.message, /tool 'write_file' is not offered: no directory is writable/);
				return true;
			});
		} finally {
			await ro.close();
		}
		assert.equal(await exists(R.p('x')), false);
	});
});

describe('write_file', () => {
	test('creates a file, relative to the first directory', async () => {
		const r = await call(srv, 'write_file', { path: 'new.txt', content: 'hello\n' });
		assert.deepEqual(ok(r, 'create'), { path: W.p('new.txt'), size: 6, created: true, encoding: 'utf8' });
		assert.equal(textOf(r), `Wrote 6 bytes to ${W.p('new.txt')} (created)\n`);
		assert.equal(await read(W.p('new.txt')), 'hello\n');
		const st = await fsp.stat(W.p('new.txt'));
		assert.equal(st.mode & 0o777, 0o644 & ~process.umask());
		if (runAs())
			assert.equal(st.uid, runAs().uid);
	});

	test('replaces a file whole, keeping its permission bits but never set-user-ID', async () => {
		await fsp.writeFile(W.p('mode.txt'), 'old content, longer than the new\n');
		await fsp.chmod(W.p('mode.txt'), 0o4751);
		if (runAs())
			await fsp.chown(W.p('mode.txt'), runAs().uid, runAs().gid);
		const r = await call(srv, 'write_file', { path: W.p('mode.txt'), content: 'new\n' });
		assert.deepEqual(ok(r, 'replace'), { path: W.p('mode.txt'), size: 4, created: false, encoding: 'utf8' });
		assert.equal(textOf(r), `Wrote 4 bytes to ${W.p('mode.txt')} (replaced)\n`);
		assert.equal(await read(W.p('mode.txt')), 'new\n');
		assert.equal((await fsp.stat(W.p('mode.txt'))).mode & 0o7777, 0o751);
	});

	test('base64 content is written as bytes; bad base64 is refused', async () => {
		const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 10, 0x80]);
		const r = await call(srv, 'write_file', { path: 'bin.dat', content: bytes.toString('base64'), encoding: 'base64' });
		assert.deepEqual(ok(r, 'base64'), { path: W.p('bin.dat'), size: 7, created: true, encoding: 'base64' });
		assert.deepEqual(await fsp.readFile(W.p('bin.dat')), bytes);
		const e = err(await call(srv, 'write_file', { path: 'bad.dat', content: 'AAA*', encoding: 'base64' }), 'bad');
		assert.equal(e, "'bad.dat': content is not valid base64 (at byte 3)");
		assert.equal(await exists(W.p('bad.dat')), false);
		const e2 = err(await call(srv, 'write_file', { path: 'x', content: 'a', encoding: 'latin1' }), 'enc');
		assert.match(e2, /encoding.*must be one of 'utf8', 'base64'/);
	});

	test('an empty file, and a file in a second writable directory', async () => {
		ok(await call(srv, 'write_file', { path: 'empty.txt', content: '' }), 'empty');
		assert.equal(await read(W.p('empty.txt')), '');
		ok(await call(srv, 'write_file', { path: W2.p('w2.txt'), content: 'two\n' }), 'w2');
		assert.equal(await read(W2.p('w2.txt')), 'two\n');
	});

	test('refusals: a directory, a FIFO, a missing directory, a trailing slash', async () => {
		assert.equal(err(await call(srv, 'write_file', { path: 'sub', content: 'x' }), 'dir'),
		    "'sub': is a directory");
		assert.equal(err(await call(srv, 'write_file', { path: 'fifo', content: 'x' }), 'fifo'),
		    "'fifo': not a regular file (it is a fifo)");
		assert.equal(err(await call(srv, 'write_file', { path: 'nodir/x.txt', content: 'x' }), 'nodir'),
		    "'nodir/x.txt': its directory does not exist (create_directory makes it)");
		assert.equal(err(await call(srv, 'write_file', { path: 'a.txt/', content: 'x' }), 'slash'),
		    "'a.txt/': ends with '/'; name a file");
		assert.equal(err(await call(srv, 'write_file', { path: W.root, content: 'x' }), 'root'),
		    `'${W.root}': is an allowed directory itself, which cannot be changed this way`);
		assert.equal(await read(W.p('a.txt')), 'alpha\n');
	});

	test('no temporary file is left behind, on success or failure', async () => {
		const names = await fsp.readdir(W.root);
		assert.deepEqual(names.filter((n) => n.includes('.tc-')), []);
	});
});

describe('read-only directories', () => {
	const cases = () => [
		['write_file', { path: R.p('r.txt'), content: 'x' }, R.p('r.txt')],
		['write_file', { path: R.p('new.txt'), content: 'x' }, R.p('new.txt')],
		['edit_file', { path: R.p('r.txt'), edits: [{ oldText: 'read', newText: 'x' }] }, R.p('r.txt')],
		['create_directory', { path: R.p('newdir') }, R.p('newdir')],
		['move_file', { source: R.p('r.txt'), destination: W.p('stolen.txt') }, R.p('r.txt')],
		['move_file', { source: W.p('a.txt'), destination: R.p('a.txt') }, R.p('a.txt')],
		['delete_file', { path: R.p('r.txt') }, R.p('r.txt')],
	];

	test('every write tool is refused there, saying so', async () => {
		for (const [tool, args, user] of cases()) {
			const t = err(await call(srv, tool, args), `${tool} ${JSON.stringify(args)}`);
			assert.equal(t, `'${user}': in a read-only directory (${R.root}); only read-write directories may be changed`, tool);
		}
		assert.equal(await read(R.p('r.txt')), 'read only\n');
		assert.deepEqual((await fsp.readdir(R.root)).sort(), ['r.txt', 'rsub']);
		assert.equal(await read(W.p('a.txt')), 'alpha\n');
	});
});

describe('nested directories', () => {
	// A read-only project with a writable scratch directory inside, and a
	// read-only directory inside that: what may be changed is decided by
	// the innermost directory where the file really is, however the path
	// is spelt.
	let N;
	let nsrv;

	before(async () => {
		N = await ownTree({ 'p.txt': 'project\n', 'scratch/s.txt': 'scratch\n', 'scratch/ro/r.txt': 'ro\n' });
		const pol = path.join(base, 'nested.policy');
		await fsp.writeFile(pol, `allow read ${N.root}\nallow write ${N.p('scratch')}\nallow read ${N.p('scratch/ro')}\n`);
		await fsp.chmod(pol, 0o644);
		nsrv = await startServer(['--policy', pol]);
	});

	after(async () => {
		await nsrv?.close();
		await N?.cleanup();
	});

	test('relative to the read-only project, a path into scratch may be written', async () => {
		ok(await call(nsrv, 'write_file', { path: 'scratch/new.txt', content: 'n\n' }), 'relative');
		assert.equal(await read(N.p('scratch/new.txt')), 'n\n');
		ok(await call(nsrv, 'edit_file', { path: N.p('scratch/s.txt'), edits: [{ oldText: 'scratch', newText: 'S' }] }), 'abs');
		ok(await call(nsrv, 'create_directory', { path: 'scratch/d1/d2' }), 'mkdir');
		ok(await call(nsrv, 'move_file', { source: 'scratch/new.txt', destination: 'scratch/d1/new.txt' }), 'mv');
		ok(await call(nsrv, 'delete_file', { path: 'scratch/d1/new.txt' }), 'rm');
	});

	test('the project itself and the read-only directory inside scratch are refused', async () => {
		const RO = (u, r) => `'${u}': in a read-only directory (${r}); only read-write directories may be changed`;
		assert.equal(err(await call(nsrv, 'write_file', { path: 'p.txt', content: 'x' }), 'project'), RO('p.txt', N.root));
		assert.equal(err(await call(nsrv, 'write_file', { path: 'scratch/ro/r.txt', content: 'x' }), 'ro'),
		    RO('scratch/ro/r.txt', N.p('scratch/ro')));
		assert.equal(err(await call(nsrv, 'create_directory', { path: 'scratch/ro/x' }), 'ro mkdir'),
		    RO('scratch/ro/x', N.p('scratch/ro')));
		assert.equal(err(await call(nsrv, 'delete_file', { path: N.p('scratch/ro/r.txt') }), 'ro rm'),
		    RO(N.p('scratch/ro/r.txt'), N.p('scratch/ro')));
		assert.equal(err(await call(nsrv, 'move_file', { source: 'scratch/s.txt', destination: 'moved.txt' }), 'out of scratch'),
		    RO('moved.txt', N.root));
		assert.equal(err(await call(nsrv, 'delete_file', { path: 'scratch', directory: true }), 'a root'),
		    RO('scratch', N.root));
		assert.equal(await read(N.p('p.txt')), 'project\n');
		assert.equal(await read(N.p('scratch/ro/r.txt')), 'ro\n');
		assert.equal(await exists(N.p('moved.txt')), false);
	});

	test('moving directories about during writes never opens the read-only one', async () => {
		// Another process (this test) renames the directory holding the
		// read-only one back and forth while writes into it run: which
		// directory a write lands in is decided on the directory itself,
		// not on paths read at different moments.
		const M = await ownTree({ 'a/ro/f.txt': 'ro\n' });
		const pol = path.join(base, 'nested-race.policy');
		await fsp.writeFile(pol, `allow write ${M.root}\nallow read ${M.p('a/ro')}\n`);
		await fsp.chmod(pol, 0o644);
		const rsrv = await startServer(['--policy', pol]);
		// The model cannot move it: a directory holding an allowed one
		// is never moved.
		assert.equal(err(await call(rsrv, 'move_file', { source: 'a', destination: 'b' }), 'move a'),
		    `'a': holds the allowed directory ${M.p('a/ro')}, which is never moved`);
		let moving = true, moves = 0;
		const mover = (async () => {
			while (moving) {
				await fsp.rename(M.p('a'), M.p('b')).then(() => fsp.rename(M.p('b'), M.p('a')))
				    .then(() => { moves++; }, () => {});
			}
		})();
		try {
			let refused = 0;
			for (let i = 0; i < 150; i++) {
				const r = await call(rsrv, 'write_file', { path: i % 2 ? 'a/ro/f.txt' : 'b/ro/f.txt',
				    content: `MODEL${i}` });
				if (r.isError)
					refused++;
			}
			assert.equal(refused, 150, 'a write into the read-only directory succeeded');
			assert.ok(moves > 10, `only ${moves} moves during the writes`);
		} finally {
			moving = false;
			await mover;
			await rsrv.close();
		}
		const f = (await exists(M.p('a/ro/f.txt'))) ? M.p('a/ro/f.txt') : M.p('b/ro/f.txt');
		assert.equal(await read(f), 'ro\n');
		await M.cleanup();
	});
});

describe('EscapeRoute cases, against every write tool', () => {
	const parentName = () => `../${path.basename(O.root)}`;
	const OUTSIDE = (u) => `'${u}': outside the allowed directories`;
	const RESOLVES = (u) => `'${u}': resolves outside the allowed directories`;
	const LOOP = (u) => `'${u}': too many symbolic links, or a link through /proc that is not followed`;
	const LINK = (u, tool) => `'${u}': is a symbolic link; ${tool} neither follows nor replaces links (name the file itself, or delete the link first)`;

	/* [tool, args, expected error text] for a path |u| that must be refused. */
	function everyTool(u, want, opts = {}) {
		const list = [
			['write_file', { path: u, content: 'pwned\n' }],
			['edit_file', { path: u, edits: [{ oldText: 'TOOLCELL', newText: 'pwned' }] }],
			['create_directory', { path: `${u}/d` }],
			['move_file', { source: u, destination: 'moved-out' }],
			['move_file', { source: 'a.txt', destination: u }],
			['delete_file', { path: u }],
		];
		return list.filter(([t]) => !(opts.skip ?? []).includes(t)).map(([t, a]) => {
			const user = t === 'create_directory' ? a.path : t === 'move_file' ?
			    (a.source === 'a.txt' ? a.destination : a.source) : u;
			return [t, a, typeof want === 'function' ? want(user, t) : want];
		});
	}

	async function refuseAll(list) {
		for (const [tool, args, want] of list) {
			const t = err(await call(srv, tool, args), `${tool} ${JSON.stringify(args)}`);
			if (want instanceof RegExp)
				assert.match(t, want, `${tool} ${JSON.stringify(args)}`);
			else
				assert.equal(t, want, `${tool} ${JSON.stringify(args)}`);
		}
		await assertOutsideIntact(JSON.stringify(list[0][1]));
		assert.equal(await read(W.p('a.txt')), 'alpha\n');
	}

	test('..', async () => {
		await refuseAll(everyTool(`${parentName()}/secret.txt`, RESOLVES));
		await refuseAll(everyTool(`sub/../../${path.basename(O.root)}/f.txt`, RESOLVES));
	});

	test('an absolute path outside', async () => {
		await refuseAll(everyTool(O.p('secret.txt'), OUTSIDE));
		await refuseAll(everyTool(O.p('brand-new.txt'), OUTSIDE));
	});

	test('the prefix twin', async () => {
		await refuseAll(everyTool(path.join(twin, 'victim.txt'), OUTSIDE));
		await refuseAll(everyTool(path.join(twin, 'new.txt'), OUTSIDE));
	});

	test('/proc/self/root, absolute and through a symlink', async () => {
		await refuseAll(everyTool(`/proc/self/root${O.p('secret.txt')}`, OUTSIDE));
		await refuseAll(everyTool(`proc${O.p('secret.txt')}`, RESOLVES));
	});

	test('a symlink at the target pointing outside, absolute and relative', async () => {
		for (const l of ['link-abs', 'link-rel']) {
			await refuseAll([
				['write_file', { path: l, content: 'pwned\n' }, LINK(l, 'write_file')],
				['edit_file', { path: l, edits: [{ oldText: 'TOOLCELL', newText: 'x' }] }, LINK(l, 'edit_file')],
				['create_directory', { path: `${l}/d` }, RESOLVES(`${l}/d`)],
				['move_file', { source: 'a.txt', destination: l }, `'${l}': already exists; pass overwrite: true to replace it`],
			]);
		}
	});

	test('a symlinked parent directory pointing outside', async () => {
		for (const l of ['dirlink', 'dirlink-rel'])
			await refuseAll(everyTool(`${l}/secret.txt`, RESOLVES));
		await refuseAll(everyTool('dirlink/brand-new.txt', RESOLVES));
	});

	test('dangling symlinks are not followed to create a file outside', async () => {
		for (const l of ['dangling', 'dangling-rel']) {
			await refuseAll([
				['write_file', { path: l, content: 'pwned\n' }, LINK(l, 'write_file')],
				['edit_file', { path: l, edits: [{ oldText: 'x', newText: 'y' }] }, LINK(l, 'edit_file')],
				['create_directory', { path: `${l}/d` }, /^'dangling(-rel)?\/d': (resolves outside the allowed directories|exists, or has a component that exists, and is not a directory)$/],
				['move_file', { source: 'a.txt', destination: l }, `'${l}': already exists; pass overwrite: true to replace it`],
			]);
			assert.equal(await exists(O.p('new-file.txt')), false);
			assert.equal(await exists(O.p('new-rel.txt')), false);
		}
		// Asked to, the links themselves are moved and deleted: never what
		// they point to.
		ok(await call(srv, 'move_file', { source: 'dangling', destination: 'dangling-moved' }), 'move link');
		assert.equal(await fsp.readlink(W.p('dangling-moved')), O.p('new-file.txt'));
		ok(await call(srv, 'delete_file', { path: 'dangling-moved' }), 'delete link');
		assert.equal(await exists(W.p('dangling-moved')), false);
		await assertOutsideIntact('dangling');
	});

	test('a hard link to a file outside is refused as a target', async (t) => {
		try {
			await fsp.link(O.p('secret.txt'), W.p('hard'));
		} catch (e) {
			t.skip(`cannot make a hard link across directories here: ${e.code}`);
			return;
		}
		const H = (tool) => `'hard': has 2 hard links; ${tool} refuses a file with more than one, since another of its names may lie outside the allowed directories (delete this name first to write a new file)`;
		await refuseAll([
			['write_file', { path: 'hard', content: 'pwned\n' }, H('write_file')],
			['edit_file', { path: 'hard', edits: [{ oldText: 'TOOLCELL', newText: 'pwned' }] }, H('edit_file')],
		]);
		// Deleting this name leaves the file outside as it was.
		ok(await call(srv, 'delete_file', { path: 'hard' }), 'delete the link');
		await assertOutsideIntact('hard link');
	});

	test('a symlink swapped in for a directory while writes run never changes a file outside', async (t) => {
		await fsp.mkdir(W.p('swap-dir'));
		await fsp.writeFile(W.p('swap-dir/f.txt'), 'inside\n');
		await fsp.symlink(O.root, W.p('swap-link'));
		if (runAs())
			execFileSync('chown', ['-hR', `${runAs().uid}:${runAs().gid}`, W.p('swap-dir'), W.p('swap-link')]);
		// A second process swaps 'swap' between the directory and the
		// link as fast as it can, atomically (renameat2 RENAME_EXCHANGE),
		// so that 'swap' always exists and is either.
		await fsp.rename(W.p('swap-dir'), W.p('swap'));
		const script = [
			'import ctypes, sys, time',
			'libc = ctypes.CDLL(None, use_errno=True)',
			'a, b = sys.argv[1].encode(), sys.argv[2].encode()',
			'end = time.time() + 60',
			'while time.time() < end:',
			'    libc.renameat2(-100, a, -100, b, 2)',
		].join('\n');
		const swapper = spawn('python3', ['-c', script, W.p('swap'), W.p('swap-link')], { stdio: 'ignore' });
		const spawned = await new Promise((resolve) => {
			swapper.once('spawn', () => resolve(true));
			swapper.once('error', () => resolve(false));
		});
		if (!spawned) {
			t.skip('python3 is needed to swap with renameat2');
			return;
		}
		let wrote = 0;
		let refused = 0;
		try {
			for (let i = 0; i < 150; i++) {
				const rs = await Promise.all([
					call(srv, 'write_file', { path: 'swap/f.txt', content: `pwned ${i}\n` }),
					call(srv, 'write_file', { path: 'swap/secret.txt', content: `pwned ${i}\n` }),
					call(srv, 'edit_file', { path: 'swap/f.txt', edits: [{ oldText: 'outside', newText: 'pwned' }] }),
					call(srv, 'create_directory', { path: 'swap/newdir' }),
					call(srv, 'delete_file', { path: 'swap/secret.txt' }),
				]);
				wrote += rs[0].isError ? 0 : 1;
				refused += rs[0].isError ? 1 : 0;
			}
		} finally {
			swapper.kill('SIGKILL');
		}
		await assertOutsideIntact('swap race');
		// The race really ran both ways: some writes landed in the
		// directory, some were refused through the link.
		assert.ok(wrote > 0 && refused > 0, `wrote ${wrote}, refused ${refused}`);
	});
});

describe('deny rules', () => {
	const DENY = (u, rule) => `'${u}': denied by policy rule '${rule}'`;

	test('.git/hooks, .git/config and .env are refused for every write tool', async () => {
		const cases = [
			['.git/hooks/pre-commit', "deny write **/.git/hooks' (built in)"],
			['.git/hooks/post-checkout', "deny write **/.git/hooks' (built in)"],
			['.git/config', "deny write **/.git/config' (built in)"],
			['.env', "deny **/.env' (built in)"],
			['sub/.env', "deny **/.env' (built in)"],
			['hooklink/pre-commit', "deny write **/.git/hooks' (built in)"],
			['drafts/d.txt', "deny write drafts' (line 4)"],
			['drafts/new.txt', "deny write drafts' (line 4)"],
			['x.lock', "deny write **/*.lock' (line 5)"],
		];
		for (const [u, rule] of cases) {
			const want = `${DENY(u, '').slice(0, -1)}${rule}`;
			for (const [tool, args] of [
				['write_file', { path: u, content: 'pwned\n' }],
				['edit_file', { path: u, edits: [{ oldText: '#', newText: 'pwned' }] }],
				['move_file', { source: u, destination: 'stolen' }],
				['move_file', { source: 'a.txt', destination: u }],
				['delete_file', { path: u }],
			])
				assert.equal(err(await call(srv, tool, args), `${tool} ${u}`), want, `${tool} ${u}`);
			// Beneath a file that a link leads to, nothing can be made
			// anyway, and that is what is said.
			assert.equal(err(await call(srv, 'create_directory', { path: `${u}/d` }), `mkdir ${u}`),
			    u === 'hooklink/pre-commit' ? `'${u}/d': exists, or has a component that exists, and is not a directory`
			    : `${DENY(`${u}/d`, '').slice(0, -1)}${rule}`);
		}
		// Through the link, into the denied directory: refused where it
		// really is (the server resolves what exists of it).
		assert.equal(err(await call(srv, 'create_directory', { path: 'hooklink/new/d' }), 'mkdir via link'),
		    "'hooklink/new/d': denied by policy rule 'deny write **/.git/hooks' (built in)");
		assert.equal(await exists(W.p('.git/hooks/new')), false);
		assert.equal(await read(W.p('.git/hooks/pre-commit')), '#!/bin/sh\n');
		assert.equal(await read(W.p('.git/config')), '[core]\n');
		assert.equal(await read(W.p('drafts/d.txt')), 'draft\n');
		assert.equal(await exists(W.p('.git/hooks/post-checkout')), false);
		assert.equal(await exists(W.p('stolen')), false);
	});

	test('deny write does not refuse reading', async () => {
		const r = await call(srv, 'read_text_file', { path: 'drafts/d.txt' });
		assert.equal(ok(r, 'read').content, 'draft\n');
	});

	test('a directory is not moved onto or away from what is denied beneath it', async () => {
		// .git itself is denied for writing, and so is a move to a .git.
		let t = err(await call(srv, 'move_file', { source: '.git', destination: 'g' }), 'move .git');
		assert.equal(t, "'.git': denied by policy rule 'deny write **/.git' (built in)");
		ok(await call(srv, 'create_directory', { path: 'stage/hooks' }), 'mkdir');
		ok(await call(srv, 'write_file', { path: 'stage/hooks/pre-commit', content: '#!/bin/sh\nevil\n' }), 'stage');
		ok(await call(srv, 'create_directory', { path: 'proj2' }), 'mkdir proj2');
		t = err(await call(srv, 'move_file', { source: 'stage', destination: 'proj2/.git' }), 'move to .git');
		assert.equal(t, "'proj2/.git': denied by policy rule 'deny write **/.git' (built in)");
		assert.equal(await exists(W.p('proj2/.git')), false);
		assert.equal(await exists(W.p('stage/hooks/pre-commit')), true);
		assert.equal(await exists(W.p('g')), false);
		// What is beneath a directory is checked at both places: a
		// *.lock inside cannot be moved away, nor a directory holding
		// one moved in.
		ok(await call(srv, 'create_directory', { path: 'box/in' }), 'mkdir box');
		await fsp.writeFile(W.p('box/in/x.lock'), 'locked\n');
		t = err(await call(srv, 'move_file', { source: 'box', destination: 'box2' }), 'move box');
		assert.equal(t, "'box': not moved, for what is beneath it: 'in/x.lock': denied by policy rule "
		    + "'deny write **/*.lock' (line 5)");
		assert.equal(await exists(W.p('box/in/x.lock')), true);
		assert.equal(await exists(W.p('box2')), false);
	});
});

describe('edit_file', () => {
	const FILE = 'alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\ngolf\nhotel\nindia\njuliet\n';

	before(async () => {
		await fsp.writeFile(W.p('e.txt'), FILE);
		await fsp.chmod(W.p('e.txt'), 0o640);
		await fsp.writeFile(W.p('crlf.txt'), 'one\r\ntwo\r\nthree\r\n');
		await fsp.writeFile(W.p('tabs.txt'), 'int\nmain(void)\n{\n\treturn 0;\n}\n');
		await fsp.writeFile(W.p('rep.txt'), 'x = 1;\ny = 2;\nx = 1;\nz = 3;\nx = 1;\n');
		if (runAs())
			execFileSync('chown', [`${runAs().uid}:${runAs().gid}`, W.p('e.txt'), W.p('crlf.txt'),
			    W.p('tabs.txt'), W.p('rep.txt')]);
	});

	test('dryRun returns the unified diff and writes nothing', async () => {
		const r = await call(srv, 'edit_file', { path: 'e.txt', dryRun: true,
		    edits: [{ oldText: 'echo\n', newText: 'ECHO\nECHO2\n' }] });
		const diff = '--- a/e.txt\n+++ b/e.txt\n@@ -2,7 +2,8 @@\n bravo\n charlie\n delta\n-echo\n+ECHO\n+ECHO2\n foxtrot\n golf\n hotel\n';
		assert.deepEqual(ok(r, 'dry'), { path: W.p('e.txt'), dryRun: true, changed: true, replacements: 1,
		    edits: [{ replacements: 1 }], size: FILE.length + 6, diff });
		assert.equal(textOf(r), `Dry run, nothing written: ${W.p('e.txt')}: 1 edit, 1 replacement.\n${diff}`);
		assert.equal(await read(W.p('e.txt')), FILE);
	});

	test('edits apply in order, are written atomically, keep the mode, and return the diff', async () => {
		const r = await call(srv, 'edit_file', { path: W.p('e.txt'), edits: [
			{ oldText: 'alpha', newText: 'ALPHA' },
			{ oldText: 'ALPHA\nbravo', newText: 'A-B' },
			{ oldText: 'juliet\n', newText: '' },
		] });
		const want = 'A-B\ncharlie\ndelta\necho\nfoxtrot\ngolf\nhotel\nindia\n';
		const diff = '--- a/e.txt\n+++ b/e.txt\n@@ -1,5 +1,4 @@\n-alpha\n-bravo\n+A-B\n charlie\n delta\n echo\n'
		    + '@@ -7,4 +6,3 @@\n golf\n hotel\n india\n-juliet\n';
		assert.deepEqual(ok(r, 'edit'), { path: W.p('e.txt'), dryRun: false, changed: true, replacements: 3,
		    edits: [{ replacements: 1 }, { replacements: 1 }, { replacements: 1 }], size: want.length, diff });
		assert.equal(textOf(r), `Edited ${W.p('e.txt')}: 3 edits, 3 replacements.\n${diff}`);
		assert.equal(await read(W.p('e.txt')), want);
		assert.equal((await fsp.stat(W.p('e.txt'))).mode & 0o777, 0o640);
	});

	test('a failed edit writes nothing, and no match names the closest text', async () => {
		const before_ = await read(W.p('e.txt'));
		const r = await call(srv, 'edit_file', { path: 'e.txt', edits: [
			{ oldText: 'charlie', newText: 'C' },
			{ oldText: 'delta\necho\nfoxtrut\n', newText: 'x' },
		] });
		assert.equal(err(r, 'miss'), "'e.txt': edit 2: oldText not found; nothing was changed.\n"
		    + 'Closest: its first 16 of 19 bytes match the file at line 3; they part at line 5 of the file, '
		    + 'where the file has "ot\\ngolf\\nhotel\\nindia\\n" and oldText has "ut\\n".\n'
		    + 'The file there:\n     3| delta\n     4| echo\n     5| foxtrot\n');
		assert.equal(await read(W.p('e.txt')), before_);
	});

	test('no part of oldText in the file', async () => {
		const r = await call(srv, 'edit_file', { path: 'e.txt', edits: [{ oldText: 'QQQ', newText: 'x' }] });
		assert.equal(err(r, 'none'), "'e.txt': edit 1: oldText not found; nothing was changed.\nNo part of it occurs in the file.\n");
	});

	test('CRLF against LF is pointed out', async () => {
		const r = await call(srv, 'edit_file', { path: 'crlf.txt', edits: [{ oldText: 'one\ntwo\n', newText: 'x' }] });
		assert.equal(err(r, 'crlf'), "'crlf.txt': edit 1: oldText not found; nothing was changed.\n"
		    + "Line endings differ: the file uses CRLF (\\r\\n), oldText uses LF (\\n); with the file's line endings it matches at line 1.\n");
		// With the file's own endings it works, and the diff shows them.
		const ok_ = ok(await call(srv, 'edit_file', { path: 'crlf.txt', edits: [{ oldText: 'two\r\n', newText: 'TWO\r\n' }] }), 'crlf ok');
		assert.equal(ok_.diff, '--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,3 +1,3 @@\n one\r\n-two\r\n+TWO\r\n three\r\n');
		assert.equal(await read(W.p('crlf.txt')), 'one\r\nTWO\r\nthree\r\n');
	});

	test('tabs against spaces are pointed out', async () => {
		const r = await call(srv, 'edit_file', { path: 'tabs.txt', edits: [{ oldText: '{\n    return 0;\n}', newText: 'x' }] });
		assert.equal(err(r, 'tabs'), "'tabs.txt': edit 1: oldText not found; nothing was changed.\n"
		    + 'It matches lines 3-5 if blanks are ignored: compare indentation (tabs, spaces), blanks between words and at line ends.\n'
		    + 'The file there:\n     3| {\n     4| \treturn 0;\n     5| }\n');
	});

	test('several matches are refused with their lines; replaceAll replaces them all', async () => {
		let r = await call(srv, 'edit_file', { path: 'rep.txt', edits: [{ oldText: 'x = 1;', newText: 'x = 9;' }] });
		assert.equal(err(r, 'multi'), "'rep.txt': edit 1: oldText occurs 3 times, at lines 1, 3, 5; nothing was changed.  "
		    + 'Add lines around it to make it unique, or set replaceAll to replace every one.\n');
		r = await call(srv, 'edit_file', { path: 'rep.txt', edits: [{ oldText: 'x = 1;', newText: 'x = 9;', replaceAll: true }] });
		const sc = ok(r, 'all');
		assert.equal(sc.replacements, 3);
		assert.deepEqual(sc.edits, [{ replacements: 3 }]);
		assert.equal(await read(W.p('rep.txt')), 'x = 9;\ny = 2;\nx = 9;\nz = 3;\nx = 9;\n');
		// Made unique by context, one alone is replaced.
		ok(await call(srv, 'edit_file', { path: 'rep.txt', edits: [{ oldText: 'z = 3;\nx = 9;', newText: 'z = 3;\nx = 0;' }] }), 'unique');
		assert.equal(await read(W.p('rep.txt')), 'x = 9;\ny = 2;\nx = 9;\nz = 3;\nx = 0;\n');
	});

	test('a last line without a newline shows as such in the diff', async () => {
		await fsp.writeFile(W.p('nonl.txt'), 'a\nb');
		if (runAs())
			await fsp.chown(W.p('nonl.txt'), runAs().uid, runAs().gid);
		const sc = ok(await call(srv, 'edit_file', { path: 'nonl.txt', edits: [{ oldText: 'b', newText: 'c\n' }] }), 'nonl');
		assert.equal(sc.diff, '--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n');
		assert.equal(await read(W.p('nonl.txt')), 'a\nc\n');
	});

	test('no change leaves the file alone; bad requests are refused', async () => {
		const sc = ok(await call(srv, 'edit_file', { path: 'a.txt', edits: [{ oldText: 'alpha', newText: 'alpha' }] }), 'same');
		assert.equal(sc.changed, false);
		assert.equal(sc.diff, '');
		assert.equal(err(await call(srv, 'edit_file', { path: 'a.txt', edits: [] }), 'empty'),
		    "'a.txt': edits is empty; give at least one {oldText, newText}");
		assert.equal(err(await call(srv, 'edit_file', { path: 'missing.txt', edits: [{ oldText: 'a', newText: 'b' }] }), 'missing'),
		    "'missing.txt': not found (write_file creates a file)");
		assert.match(err(await call(srv, 'edit_file', { path: 'a.txt', edits: [{ oldText: '', newText: 'b' }] }), 'empty old'),
		    /oldText.*must not be empty/);
		assert.equal(err(await call(srv, 'edit_file', { path: 'sub', edits: [{ oldText: 'a', newText: 'b' }] }), 'dir'),
		    "'sub': is a directory");
	});
});

describe('create_directory', () => {
	test('makes missing parents, and succeeds when the directory exists', async () => {
		let r = await call(srv, 'create_directory', { path: 'm1/m2/m3' });
		assert.deepEqual(ok(r, 'mkdir -p'), { path: W.p('m1/m2/m3'), created: true });
		assert.equal(textOf(r), `Created directory ${W.p('m1/m2/m3')}\n`);
		assert.ok((await fsp.stat(W.p('m1/m2/m3'))).isDirectory());
		r = await call(srv, 'create_directory', { path: W.p('m1/m2') });
		assert.deepEqual(ok(r, 'exists'), { path: W.p('m1/m2'), created: false });
		assert.equal(textOf(r), `Directory ${W.p('m1/m2')} already exists\n`);
		assert.deepEqual(ok(await call(srv, 'create_directory', { path: 'sub/../m1/x/' }), 'dotdot'),
		    { path: `${W.root}/sub/../m1/x`, created: true });
		assert.ok((await fsp.stat(W.p('m1/x'))).isDirectory());
	});

	test('refuses a file in the way', async () => {
		assert.equal(err(await call(srv, 'create_directory', { path: 'a.txt' }), 'file'),
		    "'a.txt': exists, or has a component that exists, and is not a directory");
		assert.equal(err(await call(srv, 'create_directory', { path: 'a.txt/x' }), 'file/x'),
		    "'a.txt/x': exists, or has a component that exists, and is not a directory");
	});
});

describe('move_file', () => {
	test('renames a file, and never overwrites unless asked', async () => {
		await fsp.writeFile(W.p('mv-a.txt'), 'A\n');
		await fsp.writeFile(W.p('mv-b.txt'), 'B\n');
		if (runAs())
			execFileSync('chown', [`${runAs().uid}:${runAs().gid}`, W.p('mv-a.txt'), W.p('mv-b.txt')]);
		let r = await call(srv, 'move_file', { source: 'mv-a.txt', destination: 'mv-b.txt' });
		assert.equal(err(r, 'no overwrite'), "'mv-b.txt': already exists; pass overwrite: true to replace it");
		assert.equal(await read(W.p('mv-a.txt')), 'A\n');
		assert.equal(await read(W.p('mv-b.txt')), 'B\n');
		r = await call(srv, 'move_file', { source: 'mv-a.txt', destination: 'mv-b.txt', overwrite: true });
		assert.deepEqual(ok(r, 'overwrite'), { source: W.p('mv-a.txt'), destination: W.p('mv-b.txt'), type: 'file', replaced: true });
		assert.equal(textOf(r), `Moved ${W.p('mv-a.txt')} to ${W.p('mv-b.txt')} (replacing what was there)\n`);
		assert.equal(await exists(W.p('mv-a.txt')), false);
		assert.equal(await read(W.p('mv-b.txt')), 'A\n');
		r = await call(srv, 'move_file', { source: 'mv-b.txt', destination: 'm-new.txt' });
		assert.deepEqual(ok(r, 'rename'), { source: W.p('mv-b.txt'), destination: W.p('m-new.txt'), type: 'file', replaced: false });
		assert.equal(textOf(r), `Moved ${W.p('mv-b.txt')} to ${W.p('m-new.txt')}\n`);
	});

	test('moves between two writable directories, and moves directories', async () => {
		ok(await call(srv, 'move_file', { source: 'm-new.txt', destination: W2.p('from-w.txt') }), 'across');
		assert.equal(await read(W2.p('from-w.txt')), 'A\n');
		ok(await call(srv, 'create_directory', { path: 'mvdir/in' }), 'mkdir');
		const sc = ok(await call(srv, 'move_file', { source: 'mvdir', destination: 'sub/mvdir2' }), 'dir');
		assert.equal(sc.type, 'directory');
		assert.ok((await fsp.stat(W.p('sub/mvdir2/in'))).isDirectory());
	});

	test('refusals: a root, into itself, a missing source, a directory over a file', async () => {
		assert.equal(err(await call(srv, 'move_file', { source: W2.root, destination: 'w2moved' }), 'root'),
		    `'${W2.root}': is an allowed directory itself, which cannot be changed this way`);
		assert.equal(err(await call(srv, 'move_file', { source: 'sub', destination: 'sub/inside' }), 'into itself'),
		    "'sub': cannot be moved into itself or beneath itself");
		assert.equal(err(await call(srv, 'move_file', { source: 'nope', destination: 'x' }), 'missing'),
		    "'nope': not found");
		assert.equal(err(await call(srv, 'move_file', { source: 'sub', destination: 'a.txt', overwrite: true }), 'dir over file'),
		    "'a.txt': is not a directory, and 'sub' is");
		assert.equal(await read(W.p('a.txt')), 'alpha\n');
		assert.ok((await fsp.stat(W2.root)).isDirectory());
	});
});

describe('delete_file', () => {
	test('deletes a file; a directory only when empty and asked', async () => {
		await fsp.writeFile(W.p('del.txt'), 'bye\n');
		await fsp.mkdir(W.p('del-empty'));
		await fsp.mkdir(W.p('del-full'));
		await fsp.writeFile(W.p('del-full/x'), 'x\n');
		if (runAs())
			execFileSync('chown', ['-R', `${runAs().uid}:${runAs().gid}`, W.p('del.txt'), W.p('del-empty'), W.p('del-full')]);
		let r = await call(srv, 'delete_file', { path: 'del.txt' });
		assert.deepEqual(ok(r, 'file'), { path: W.p('del.txt'), type: 'file' });
		assert.equal(textOf(r), `Deleted file ${W.p('del.txt')}\n`);
		assert.equal(await exists(W.p('del.txt')), false);
		assert.equal(err(await call(srv, 'delete_file', { path: 'del-empty' }), 'dir'),
		    "'del-empty': is a directory; delete_file removes files and symbolic links, and an empty directory only with directory: true");
		r = await call(srv, 'delete_file', { path: 'del-empty', directory: true });
		assert.deepEqual(ok(r, 'empty dir'), { path: W.p('del-empty'), type: 'directory' });
		assert.equal(await exists(W.p('del-empty')), false);
		assert.equal(err(await call(srv, 'delete_file', { path: 'del-full', directory: true }), 'full'),
		    "'del-full': directory not empty; delete_file removes only empty directories");
		assert.equal(await read(W.p('del-full/x')), 'x\n');
	});

	test('refusals: a root, a missing file, a FIFO', async () => {
		assert.equal(err(await call(srv, 'delete_file', { path: W.root, directory: true }), 'root'),
		    `'${W.root}': is an allowed directory itself, which cannot be changed this way`);
		assert.equal(err(await call(srv, 'delete_file', { path: `${W2.root}/.`, directory: true }), 'root/.'),
		    `'${W2.root}/.': is an allowed directory itself, which cannot be changed this way`);
		assert.equal(err(await call(srv, 'delete_file', { path: 'nope.txt' }), 'missing'), "'nope.txt': not found");
		assert.equal(err(await call(srv, 'delete_file', { path: 'fifo' }), 'fifo'),
		    "'fifo': not a regular file or symbolic link (it is a fifo)");
		assert.ok(await exists(W.root));
	});
});

describe('concurrent writers', () => {
	test('never leave a partial file: the result is exactly one of the contents written', async () => {
		const N = 8;
		const size = 512 * 1024;
		for (let round = 0; round < 3; round++) {
			const contents = Array.from({ length: N }, (_, i) =>
			    String.fromCharCode(65 + i).repeat(size - 1) + '\n');
			const rs = await Promise.all(contents.map((c) =>
			    call(srv, 'write_file', { path: 'race.txt', content: c })));
			for (const r of rs)
				ok(r, 'parallel write');
			const got = await read(W.p('race.txt'));
			assert.ok(contents.includes(got), `round ${round}: a mixture of ${N} writes (${got.length} bytes)`);
		}
		const names = await fsp.readdir(W.root);
		assert.deepEqual(names.filter((n) => n.includes('.tc-')), []);
	});
});

/* The pids of the processes whose parent is |pid|, from /proc. */
function childrenOf(pid) {
	const out = [];
	for (const n of readdirSync('/proc')) {
		if (!/^\d+$/.test(n))
			continue;
		let stat;
		try {
			stat = readFileSync(`/proc/${n}/stat`, 'utf8');
		} catch {
			continue;	/* gone meanwhile */
		}
		// "pid (comm) state ppid ...": comm may hold anything but ')'.
		const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (Number(f[1]) === pid)
			out.push(Number(n));
	}
	return out;
}

/* The state letter of process |pid| ('R', 'S', 'D', 'T', 'Z', ...), or ''
 * once it is gone. */
function procState(pid) {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat[stat.lastIndexOf(')') + 2];
	} catch {
		return '';
	}
}

/* What process |pid| has open: for each fd, its link's target and how
 * many names its file has ([] once it is gone). */
function openFiles(pid) {
	const out = [];
	let fds;
	try {
		fds = readdirSync(`/proc/${pid}/fd`);
	} catch {
		return out;
	}
	for (const fd of fds) {
		try {
			const at = `/proc/${pid}/fd/${fd}`;
			out.push({ link: readlinkSync(at), nlink: statSync(at).nlink });
		} catch {
			/* closed meanwhile */
		}
	}
	return out;
}

/*
 * Why the open files of |srv|'s calls cannot be seen from here, or null
 * when they can.  The server and its children are not dumpable, so their
 * /proc/PID/fd belongs to root: only root may look.
 */
function cannotWatch(srv) {
	try {
		readdirSync(`/proc/${srv.pid}/fd`);
		return null;
	} catch (e) {
		return `the open files of a call's child cannot be seen without root (${e.code}): `
		    + 'the server and its children are not dumpable';
	}
}

/* Waits until process |pid| is gone (or a zombie), for at most |ms|. */
async function gone(pid, ms) {
	const end = Date.now() + ms;
	while (Date.now() < end) {
		if (['', 'Z'].includes(procState(pid)))
			return true;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	return false;
}

/*
 * Stops a child of |srv| at a moment when want(files), given what it has
 * open, holds; returns its pid, left stopped, or 0 once done() says the
 * call ended first.  Each child is stopped first and looked at only once
 * the kernel says it has stopped: what is seen is then the state it stays
 * in.  A child looked at while it ran could be past that moment by the
 * time a SIGSTOP reached it; this one cannot.  A child that is not there
 * yet goes on (SIGCONT) and is stopped again the next time round, so it
 * moves through its call a short step at a time (the children are looked
 * for in /proc only every few rounds, which keeps the steps short).
 */
async function stopChildWhen(srv, want, done) {
	let kids = [];

	for (let round = 0; !done(); round++) {
		if (round % 16 === 0)
			kids = childrenOf(srv.pid);
		for (const c of kids) {
			try {
				process.kill(c, 'SIGSTOP');
			} catch {
				continue;	/* gone meanwhile */
			}
			let st;
			while (!['T', 't', 'Z', ''].includes(st = procState(c)))
				await new Promise((resolve) => setImmediate(resolve));
			if (st !== 'T' && st !== 't')
				continue;
			if (want(openFiles(c)))
				return c;
			try {
				process.kill(c, 'SIGCONT');
			} catch {
				/* killed meanwhile: at its deadline */
			}
		}
		await new Promise((resolve) => setImmediate(resolve));
	}
	return 0;
}

/* Whether |files| hold an unnamed file made in |dir| (O_TMPFILE): its
 * /proc link reads "DIR/#INODE (deleted)", and it has no name yet.  The
 * link reads so still once linkat() has given the file its temporary
 * name, just before the rename over the target: a child stopped between
 * those two system calls and killed leaves that name, which no write
 * that replaces a file can avoid (an unnamed file gets a name only by a
 * link, and a link does not replace), and which this test is not
 * about. */
const unnamedIn = (dir) => (files) => files.some((f) => f.link.startsWith(`${dir}/#`) &&
    f.link.endsWith(' (deleted)') && f.nlink === 0);

describe('a write killed mid-way', () => {
	// The call's child is stopped while it holds the new file open,
	// still unnamed (it is writing or syncing it), then killed by the
	// server: at the call's deadline, or when the client cancels the
	// call.  Nothing may be left in the directory: not the file, and no
	// temporary file beside it, whose name would start with the target's
	// and so could match a deny rule ('.env.tc-...' under '**/.env.*')
	// that would hide it from every tool.
	let K;
	let ksrv;

	before(async () => {
		K = await ownTree({ 'keep.txt': 'kept\n' });
		const pol = path.join(base, 'killed.policy');
		await fsp.writeFile(pol, `allow write ${K.root}\ntool write_file timeout 4s\n`);
		await fsp.chmod(pol, 0o644);
		ksrv = await startServer(['--policy', pol]);
	});

	after(async () => {
		await ksrv?.close();
		await K?.cleanup();
	});

	/*
	 * Calls write_file on |name| and stops its child while the new file
	 * is open and unnamed; then lets the deadline kill it, or cancels the
	 * call.  Returns the stopped child's pid, or 0 if the call ended
	 * first.
	 */
	async function killMidWay(name, how) {
		const content = 'k'.repeat(8 << 20);
		const ac = new AbortController();
		let settled = false;
		const p = call(ksrv, 'write_file', { path: name, content }, { timeout: 30_000, signal: ac.signal })
		    .finally(() => { settled = true; });
		const caught = await stopChildWhen(ksrv, unnamedIn(K.root), () => settled);
		if (caught === 0) {
			await p;	/* done, or out of time before it began */
			await fsp.rm(K.p(name), { force: true });
			return 0;
		}
		if (how === 'cancel') {
			ac.abort();
			await assert.rejects(p);
		} else {
			assert.match(err(await p, 'killed write'), /stopped at its deadline of 4000 ms/);
		}
		assert.ok(await gone(caught, 10_000), `child ${caught} still there`);
		return caught;
	}

	for (const [name, how] of [['env', 'deadline'], ['big.txt', 'cancel']]) {
		test(`leaves nothing behind ('${name}', killed by ${how})`, async (t) => {
			const why = cannotWatch(ksrv);
			if (why)
				return t.skip(why);
			const before_ = readdirSync(K.root).sort();
			let caught = 0;
			for (let attempt = 0; attempt < 20 && caught === 0; attempt++)
				caught = await killMidWay(name, how);
			assert.notEqual(caught, 0, 'the write was never caught with its new file open and unnamed');
			assert.deepEqual(readdirSync(K.root).sort(), before_);
			// The name is free, and a write that is not stopped works.
			ok(await call(ksrv, 'write_file', { path: name, content: 'new\n' }), 'write after');
			assert.equal(await read(K.p(name)), 'new\n');
			assert.deepEqual(readdirSync(K.root).sort(), [...before_, name].sort());
			await fsp.rm(K.p(name));
		});
	}
});

describe('a symlink put at the last name while a change runs', () => {
	// The changing tools never follow the last name of their path: they
	// check it with lstat, rename over it, unlink it, or open it
	// O_NOFOLLOW.  Here the child is stopped at the moment between its
	// checks and its change, a symbolic link is put in place of the
	// entry it checked, and it goes on: the link leads into 'locked',
	// which the policy keeps from writes, and nothing may land there.
	let S;
	let ssrv;
	const LINK = (u, tool) => `'${u}': is a symbolic link; ${tool} neither follows nor replaces links `
	    + '(name the file itself, or delete the link first)';

	/* Where link |p| leads, or null if it is not a link. */
	const linkOf = (p) => {
		try {
			return readlinkSync(p);
		} catch {
			return null;
		}
	};

	/* Gives |paths| (not following links) to the server's user. */
	const own = (...paths) => runAs() && execFileSync('chown', ['-h',
	    `${runAs().uid}:${runAs().gid}`, ...paths]);

	before(async () => {
		S = await ownTree({ 'locked/l.txt': 'locked\n', 'target.txt': 'target\n', 'a.txt': 'alpha\n' });
		const pol = path.join(base, 'swap.policy');
		await fsp.writeFile(pol, `allow write ${S.root}\ndeny write **/locked\n`);
		await fsp.chmod(pol, 0o644);
		ssrv = await startServer(['--policy', pol]);
	});

	after(async () => {
		await ssrv?.close();
		await S?.cleanup();
	});

	/*
	 * Calls |tool| with |args|, stops its child once want() holds, then
	 * runs swap() and lets the child go on; again while the call ends
	 * first, at most 20 times (|fresh| makes the files anew each time).
	 * With |late|, a call whose result late() holds was caught past its
	 * last check (want() sees the new file open, unnamed, until its
	 * rename, a little longer than the checks come before it: a swap
	 * then replaces only the name, as fs_replace_file() says): 'locked'
	 * must be as it was, and the call is made again.  Returns the result
	 * of the call that was caught before its last check.
	 */
	async function swapMidWay(tool, args, want, fresh, swap, late) {
		for (let attempt = 0; attempt < 20; attempt++) {
			await fresh();
			let settled = false;
			const p = call(ssrv, tool, args, { timeout: 30_000 }).finally(() => { settled = true; });
			const caught = await stopChildWhen(ssrv, want, () => settled);
			if (caught === 0) {
				await p;
				continue;
			}
			try {
				await swap();
			} finally {
				process.kill(caught, 'SIGCONT');
			}
			const r = await p;
			if (late?.(r)) {
				await lockedIntact();
				continue;
			}
			return r;
		}
		assert.fail(`${tool} was never caught between its checks and its change`);
	}

	/* A changing tool's call that succeeded: caught past its last check. */
	const succeeded = (r) => r.isError !== true;

	/* Asserts that 'locked' holds what it did, and no temporary file was left. */
	async function lockedIntact() {
		assert.deepEqual(readdirSync(S.p('locked')), ['l.txt']);
		assert.equal(await read(S.p('locked/l.txt')), 'locked\n');
		assert.deepEqual(readdirSync(S.root).filter((n) => n.includes('.tc-')), []);
	}

	/* Puts a link to locked/l.txt in place of |name|, atomically. */
	async function linkOver(name) {
		await fsp.rm(S.p('swap.tmp'), { force: true });
		await fsp.symlink('locked/l.txt', S.p('swap.tmp'));
		own(S.p('swap.tmp'));
		await fsp.rename(S.p('swap.tmp'), S.p(name));
	}

	test('write_file: checked as a file, a link by the time it is replaced', async (t) => {
		const why = cannotWatch(ssrv);
		if (why)
			return t.skip(why);
		const r = await swapMidWay('write_file', { path: 'w.txt', content: 'w'.repeat(8 << 20) },
		    unnamedIn(S.root), async () => {
			await fsp.rm(S.p('w.txt'), { force: true });
			await fsp.writeFile(S.p('w.txt'), 'old\n');
			own(S.p('w.txt'));
		}, () => linkOver('w.txt'), succeeded);
		await lockedIntact();
		assert.equal(linkOf(S.p('w.txt')), 'locked/l.txt', 'the link was replaced');
		assert.equal(err(r, 'write_file'), LINK('w.txt', 'write_file'));
	});

	test('edit_file: checked as a file, a link by the time it is replaced', async (t) => {
		const why = cannotWatch(ssrv);
		if (why)
			return t.skip(why);
		const body = `edit me\n${`${'e'.repeat(63)}\n`.repeat(128 << 10)}`;
		const r = await swapMidWay('edit_file', { path: 'e.txt', edits: [{ oldText: 'edit me', newText: 'edited' }] },
		    unnamedIn(S.root), async () => {
			await fsp.rm(S.p('e.txt'), { force: true });
			await fsp.writeFile(S.p('e.txt'), body);
			own(S.p('e.txt'));
		}, () => linkOver('e.txt'), succeeded);
		await lockedIntact();
		assert.equal(linkOf(S.p('e.txt')), 'locked/l.txt', 'the link was replaced');
		assert.equal(err(r, 'edit_file'), "'e.txt': changed while it was being edited; nothing was written: try again");
	});

	test('create_directory: a directory it has just made, then a link, is not gone into', async (t) => {
		const why = cannotWatch(ssrv);
		if (why)
			return t.skip(why);
		// A long chain of new directories 'd': between making one and
		// opening it (O_NOFOLLOW) to make the next inside, the child
		// holds only the one before it, and the new one exists.
		const top = S.p('deep');
		const rel = `deep/${Array(400).fill('d').join('/')}`;
		let at = null;
		const want = (files) => {
			const mine = files.map((f) => f.link).filter((f) => f === top || f.startsWith(`${top}/`));
			if (mine.length !== 1)
				return false;
			try {
				if (!lstatSync(`${mine[0]}/d`).isDirectory())
					return false;
			} catch {
				return false;
			}
			at = mine[0];
			return true;
		};
		const r = await swapMidWay('create_directory', { path: rel }, want,
		    () => fsp.rm(top, { recursive: true, force: true }), async () => {
			await fsp.rmdir(`${at}/d`);
			await fsp.mkdir(`${at}/locked`);
			await fsp.symlink('locked', `${at}/d`);
			own(`${at}/locked`, `${at}/d`);
		});
		assert.deepEqual(readdirSync(`${at}/locked`), [], 'directories were made in locked, through the link');
		assert.equal(err(r, 'create_directory'),
		    `'${rel}': 'd' exists and is not a directory (a file or a symbolic link)`);
		assert.equal(linkOf(`${at}/d`), 'locked');
		await lockedIntact();
	});

	test('move_file and delete_file move and delete a link itself, never what it leads to', async () => {
		await fsp.symlink('target.txt', S.p('ml'));
		own(S.p('ml'));
		ok(await call(ssrv, 'move_file', { source: 'ml', destination: 'ml2' }), 'move the link');
		assert.equal(readlinkSync(S.p('ml2')), 'target.txt');
		ok(await call(ssrv, 'move_file', { source: 'a.txt', destination: 'ml2', overwrite: true }), 'over the link');
		assert.equal(await read(S.p('ml2')), 'alpha\n');
		assert.equal((await fsp.lstat(S.p('ml2'))).isFile(), true);
		await fsp.symlink('target.txt', S.p('dl'));
		own(S.p('dl'));
		ok(await call(ssrv, 'delete_file', { path: 'dl' }), 'delete the link');
		assert.equal(await exists(S.p('dl')), false);
		assert.equal(await read(S.p('target.txt')), 'target\n');
		await lockedIntact();
	});
});

describe('move_file undone', () => {
	// A directory is checked before it is moved and again where it lands;
	// an entry the deny rules refuse that appears beneath it during the
	// move (here made by another process the moment the destination
	// exists) makes the move undone.  If something took the old name
	// meanwhile, the directory is moved back beside it under a new name,
	// never left holding the denied entry in the destination.
	const FILES = 3000;	/* so that the check after the move takes a while */
	const box = () => W.p('mvu/box');
	const box2 = () => W.p('mvu/box2');

	after(async () => {
		await fsp.rm(W.p('mvu'), { recursive: true, force: true });
	});

	/* Makes mvu/box, full of files, with nothing else in mvu. */
	async function freshBox() {
		await fsp.rm(W.p('mvu'), { recursive: true, force: true });
		await fsp.mkdir(box(), { recursive: true });
		for (let i = 0; i < FILES; i++)
			await fsp.writeFile(W.p(`mvu/box/f${String(i).padStart(4, '0')}`), '');
		if (runAs())
			execFileSync('chown', ['-R', `${runAs().uid}:${runAs().gid}`, W.p('mvu')]);
	}

	/*
	 * Starts a process that, as soon as mvu/box2 exists, makes
	 * mvu/box2/zz.lock (which the policy's 'deny write' of *.lock files
	 * refuses) and, with |take|, then takes the name mvu/box.  Resolves,
	 * once it is watching, to a function that stops it.
	 */
	async function racer(take) {
		const code = [
			"const fs = require('node:fs');",
			'const [dst, src, take] = process.argv.slice(1);',
			"process.stdout.write('ready\\n');",
			'for (;;) {',
			'	if (!fs.existsSync(dst)) continue;',
			"	try { fs.writeFileSync(`${dst}/zz.lock`, 'x'); } catch {}",
			"	if (take === '1') try { fs.mkdirSync(src); } catch {}",
			'	break;',
			'}',
		].join('\n');
		const child = spawn(process.execPath, ['-e', code, box2(), box(), take ? '1' : '0'],
		    { stdio: ['ignore', 'pipe', 'inherit'] });
		const exited = new Promise((resolve) => child.once('exit', resolve));
		await new Promise((resolve, reject) => {
			child.stdout.once('data', resolve);
			child.once('error', reject);
		});
		return async () => {
			const t = setTimeout(() => child.kill('SIGKILL'), 500);
			await exited;
			clearTimeout(t);
		};
	}

	/* Moves mvu/box to mvu/box2 until the check after the move refuses
	 * it; returns that error's text. */
	async function moveUntilUndone(take) {
		for (let attempt = 0; attempt < 40; attempt++) {
			await freshBox();
			const stop = await racer(take);
			const r = await call(srv, 'move_file', { source: box(), destination: box2() });
			await stop();
			if (r.isError)
				return textOf(r);
		}
		assert.fail('the check after the move never saw the denied entry');
	}

	const RULE = "'zz.lock': denied by policy rule 'deny write **/*.lock' (line 5)";

	test('moved back when the old name is free', async () => {
		const t = await moveUntilUndone(false);
		assert.equal(t, `'${box()}': moved back from '${box2()}', for what appeared beneath it `
		    + `during the move: ${RULE}`);
		assert.deepEqual(readdirSync(W.p('mvu')), ['box']);
		assert.equal(readdirSync(box()).length, FILES + 1);
	});

	test('moved back beside the old name when that was taken meanwhile', async () => {
		const t = await moveUntilUndone(true);
		const names = readdirSync(W.p('mvu')).sort();
		assert.equal(names.length, 2, `mvu holds ${names}`);
		assert.equal(names[0], 'box');
		assert.match(names[1], /^box\.tc-moved-[0-9a-f]{8}$/);
		assert.equal(t, `'${box()}': moved back from '${box2()}' as '${W.p(`mvu/${names[1]}`)}', `
		    + `since its old name was taken meanwhile, for what appeared beneath it during the move: ${RULE}`);
		// The name taken is what took it; what was moved is all beside it.
		assert.deepEqual(readdirSync(box()), []);
		assert.equal(readdirSync(W.p(`mvu/${names[1]}`)).length, FILES + 1);
	});
});
