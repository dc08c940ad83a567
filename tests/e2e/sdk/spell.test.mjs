// spell.test.mjs: a rule holds whatever spelling a call uses.  A tool's
// alias is the same tool for the policy and the audit log; a consent rule
// sees a path as the deny rules do (as given, where it leads, through every
// root that holds it, however deep what it creates); what consent was given
// for is what the call reaches, even if a symbolic link is swapped after
// the question; and the tools that walk a tree leave out what needs a
// consent nobody gave.
//
// With TOOLCELL_AS=nobody the server, and so its hooks, run as nobody: the
// trees are given to the server's user, so that it can write there and its
// hooks can swap links.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import {
	BUILD, CALL_TIMEOUT, call, entryName, fileUri, logRecords, makeScratch, makeTree, runAs,
	runServer, secretToken, startServer, symlink, textOf, transcript,
} from './lib.mjs';

const HOSTILE = path.join(BUILD, 'tests', 'toolcell-hostile');

const base = await makeScratch('spell');	// policies, hooks, logs
const { policy, ownedDir } = base;

after(() => base.cleanup());

/* Makes a tree as makeTree() does, given to the server's user. */
async function serverTree(spec) {
	const t = await makeTree(spec);
	const as = runAs();
	if (as)
		execFileSync('chown', ['-hR', `${as.uid}:${as.gid}`, t.root]);
	return t;
}

/* Writes the shell script |body| as an executable hook; returns its path. */
async function hook(body) {
	const p = base.unique('hook', '.sh');
	await fsp.writeFile(p, `#!/bin/sh\n${body}\n`);
	await fsp.chmod(p, 0o755);
	return p;
}

/* Starts toolcell-fs with the policy |lines|; opts as startServer()'s. */
async function serve(lines, opts = {}) {
	return startServer(['--policy', await policy(lines)], opts);
}

/* An elicitation handler that counts its requests and answers |answer|. */
function answering(answer) {
	const h = async (req) => {
		h.requests.push(req);
		return answer;
	};
	h.requests = [];
	return h;
}

const NOBODY = 'nobody could be asked for consent (the client does not support elicitation '
    + 'and the policy names no consent-hook), so it is denied';

/* The exact text of a consent denial. */
function denial(why, rule) {
	return `The call was not run: ${why}. (Policy rule '${rule}' asks a person before this call.)`;
}

/* Asserts |r| is a consent denial by rule |rule| with nobody to ask. */
function refusedByConsent(r, rule, what) {
	assert.equal(r.isError, true, `${what}: ran: ${JSON.stringify(r.content)}`);
	assert.equal(textOf(r), denial(NOBODY, rule), what);
}

/* Asserts |r| succeeded, and returns its structuredContent. */
function ok(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	return r.structuredContent;
}

/* Asserts that calling |name| is a protocol error: an unknown tool. */
async function unknownTool(srv, name, args) {
	await assert.rejects(call(srv, name, args), (e) => {
		assert.ok(e instanceof McpError, String(e));
		assert.equal(e.code, -32602);
		assert.match(e.message, new RegExp(`unknown tool '${name}'`));
		return true;
	});
}

/* Every name in a directory_tree's structured tree, with its path. */
function treeNames(nodes, prefix = '') {
	const out = [];
	for (const n of nodes) {
		const name = entryName(n);
		out.push(prefix + name);
		if (Array.isArray(n.children))
			out.push(...treeNames(n.children, `${prefix}${name}/`));
	}
	return out;
}

// ------------------------------------------------------------------ aliases

describe('an alias is the same tool', () => {
	let tree;

	before(async () => {
		tree = await makeTree({
			'a.txt': 'alpha\n',
			'big.txt': 'x'.repeat(8191) + '\n',
			'secret/s.txt': 'sierra\n',
		});
	});
	after(() => tree?.cleanup());

	test('tool read_text_file off: read_file is off too, neither listed nor run', async () => {
		const srv = await serve([`allow read ${tree.root}`, 'tool read_text_file off']);
		try {
			const names = (await srv.client.listTools()).tools.map((t) => t.name);
			assert.ok(!names.includes('read_text_file'), names.join());
			assert.ok(!names.includes('read_file'), `read_file listed: ${names.join()}`);
			await unknownTool(srv, 'read_file', { path: 'a.txt' });
		} finally {
			await srv.close();
		}
	});

	test('a tools line: read_file follows read_text_file, on and off', async () => {
		let srv = await serve([`allow read ${tree.root}`, 'tools read_text_file']);
		try {
			const names = (await srv.client.listTools()).tools.map((t) => t.name);
			assert.deepEqual(names, ['read_text_file', 'read_file']);
			assert.equal(ok(await call(srv, 'read_file', { path: 'a.txt' }), 'read_file').content,
			    'alpha\n');
		} finally {
			await srv.close();
		}
		srv = await serve([`allow read ${tree.root}`, 'tools list_directory']);
		try {
			await unknownTool(srv, 'read_file', { path: 'a.txt' });
		} finally {
			await srv.close();
		}
	});

	test('a consent rule on read_text_file asks for read_file, with or without patterns', async () => {
		let srv = await serve([`allow read ${tree.root}`, 'consent read_text_file']);
		try {
			refusedByConsent(await call(srv, 'read_file', { path: 'a.txt' }),
			    'consent read_text_file (line 2)', 'read_file');
		} finally {
			await srv.close();
		}
		srv = await serve([`allow read ${tree.root}`, 'consent read_text_file secret']);
		try {
			refusedByConsent(await call(srv, 'read_file', { path: 'secret/s.txt' }),
			    'consent read_text_file secret (line 2)', 'read_file secret/s.txt');
			assert.ok(!transcript(srv).includes('sierra'), 'the file was read');
			assert.equal(ok(await call(srv, 'read_file', { path: 'a.txt' }), 'a.txt').content,
			    'alpha\n');
		} finally {
			await srv.close();
		}
		// The hook is told the name called and the tool it is.
		const out = await ownedDir();
		const h = await hook(`cat > "${out}/stdin.json"\nexit 0`);
		srv = await serve([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		try {
			ok(await call(srv, 'read_file', { path: 'a.txt' }), 'asked, and allowed');
			const doc = JSON.parse(await fsp.readFile(path.join(out, 'stdin.json'), 'utf8'));
			assert.equal(doc.tool, 'read_file');
			assert.equal(doc.alias_of, 'read_text_file');
			assert.equal(doc.rule, 'consent read_text_file (line 2)');
		} finally {
			await srv.close();
		}
	});

	test('a yes for the session, given for one name, holds for the other', async () => {
		const h = answering({ action: 'accept', content: { allow: true, session: true } });
		const srv = await serve([`allow read ${tree.root}`, 'consent read_text_file secret'],
		    { capabilities: { elicitation: {} },
		    handlers: [[ElicitRequestSchema, h]] });
		try {
			ok(await call(srv, 'read_file', { path: 'secret/s.txt' }), 'read_file');
			assert.equal(h.requests.length, 1, 'read_file was not asked about');
			ok(await call(srv, 'read_text_file', { path: 'secret/s.txt' }), 'read_text_file');
			assert.equal(h.requests.length, 1, 'asked again under the other name');
		} finally {
			await srv.close();
		}
	});

	test('tool read_text_file timeout and limit hold for read_file', async () => {
		const srv = await serve([`allow read ${tree.root}`, 'tool read_text_file limit output 1K']);
		try {
			const r = await call(srv, 'read_file', { path: 'big.txt' });
			assert.equal(r.isError, true, 'read_file was not limited');
			assert.equal(textOf(r), 'the result exceeded the 1024-byte limit and was discarded; '
			    + 'ask for less at a time');
		} finally {
			await srv.close();
		}
	});

	test('a policy names a tool by one name: the alias is an error that says which', async () => {
		const p = await policy([`allow read ${tree.root}`, 'tools read_text_file read_file',
		    'tool read_file off', 'tool read_file limit output 1K', 'consent read_file']);
		const r = await runServer(['--policy', p, '--check']);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		const why = '\'read_file\' is an alias of \'read_text_file\', and the same tool: write '
		    + '\'read_text_file\', which covers both';
		assert.equal(r.stderr, [
			`toolcell-fs: error: ${p}:2: tools: ${why}`,
			`toolcell-fs: error: ${p}:3: tool: ${why}`,
			`toolcell-fs: error: ${p}:4: tool: ${why}`,
			`toolcell-fs: error: ${p}:5: consent: ${why}`,
			'toolcell-fs: 4 errors',
			'',
		].join('\n'));
	});

	test('--check shows the alias with its tool', async () => {
		let r = await runServer(['--policy', await policy([`allow read ${tree.root}`,
		    'tool read_text_file off']), '--check']);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, /^ {2}read_text_file +off +\(tool read_text_file off, line 2\)$/m);
		assert.match(r.stdout, /^ {2}read_file +off +\(an alias of read_text_file, which it follows\)$/m);
		r = await runServer(['--policy', await policy([`allow read ${tree.root}`]), '--check']);
		assert.match(r.stdout, /^ {2}read_file +on +\(an alias of read_text_file, which it follows\)$/m);
	});

	test('the audit log names the tool as called and the tool it is', async () => {
		const log = path.join(await ownedDir(), 'audit.jsonl');
		const srv = await serve([`allow read ${tree.root}`, `audit ${log}`]);
		try {
			ok(await call(srv, 'read_file', { path: 'a.txt' }), 'read_file');
			ok(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read_text_file');
		} finally {
			await srv.close();
		}
		const recs = (await logRecords(log)).filter((r) => r.event === 'call' || r.event === 'result');
		assert.deepEqual(recs.map((r) => [r.event, r.tool, r.alias_of]), [
			['call', 'read_file', 'read_text_file'],
			['result', 'read_file', 'read_text_file'],
			['call', 'read_text_file', undefined],
			['result', 'read_text_file', undefined],
		]);
	});
});

// ------------------------------------------------------- spellings of a path

describe('consent sees a path as the deny rules do', () => {
	let tree;

	before(async () => {
		tree = await makeTree({
			'a.txt': 'alpha\n',
			'sub/secret/x.txt': 'xray\n',
			'sub/ok.txt': 'oscar\n',
			'to-sub-secret': symlink('sub/secret/x.txt'),
			'public/p.txt': 'papa\n',
			'shared': symlink('public'),
		});
	});
	after(() => tree?.cleanup());

	test('nested roots: a relative pattern asks through whichever root holds the path', async () => {
		const rule = 'consent * secret (line 3)';
		const srv = await serve([`allow read ${tree.root}`, `allow read ${tree.p('sub')}`,
		    'consent * secret']);
		try {
			for (const p of ['sub/secret/x.txt', tree.p('sub/secret/x.txt'), 'to-sub-secret',
			    'sub/../sub/secret/x.txt']) {
				refusedByConsent(await call(srv, 'read_text_file', { path: p }), rule, p);
				refusedByConsent(await call(srv, 'get_file_info', { path: p }), rule, p);
			}
			refusedByConsent(await call(srv, 'list_directory', { path: 'sub/secret' }), rule,
			    'list sub/secret');
			assert.ok(!transcript(srv).includes('xray'), 'the file was read');
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'sub/ok.txt' }), 'ok')
			    .content, 'oscar\n');
		} finally {
			await srv.close();
		}
	});

	test('a rule on the name a path is given by asks, wherever the name leads', async () => {
		for (const pat of ['shared', `${tree.root}/shared`]) {
			const srv = await serve([`allow read ${tree.root}`, `consent * ${pat}`]);
			try {
				for (const p of ['shared/p.txt', tree.p('shared/p.txt')])
					refusedByConsent(await call(srv, 'read_text_file', { path: p }),
					    `consent * ${pat} (line 2)`, `${pat}: ${p}`);
				assert.equal(ok(await call(srv, 'read_text_file', { path: 'public/p.txt' }),
				    'public').content, 'papa\n');
			} finally {
				await srv.close();
			}
		}
	});
});

describe('consent sees every path a call creates, however deep', () => {
	let tree;

	before(async () => {
		tree = await serverTree({
			'scratch/keep.txt': 'kilo\n',
			'to-scratch': symlink('scratch'),
			'other/o.txt': 'oscar\n',
		});
	});
	after(() => tree?.cleanup());

	test('create_directory: a chain of new directories under a consent-only one asks', async () => {
		const rule = `consent * ${tree.root}/scratch (line 2)`;
		const srv = await serve([`allow write ${tree.root}`, `consent * ${tree.root}/scratch`]);
		try {
			for (const p of ['scratch/b', 'scratch/b/c/d', 'to-scratch/b/c/d',
			    tree.p('to-scratch/b/c'), 'other/../to-scratch/e/f']) {
				refusedByConsent(await call(srv, 'create_directory', { path: p }), rule, p);
			}
			await assert.rejects(fsp.stat(tree.p('scratch/b')), { code: 'ENOENT' });
			await assert.rejects(fsp.stat(tree.p('scratch/e')), { code: 'ENOENT' });
			// Elsewhere, the chain is made.
			ok(await call(srv, 'create_directory', { path: 'other/b/c/d' }), 'other');
			assert.ok((await fsp.stat(tree.p('other/b/c/d'))).isDirectory());
		} finally {
			await srv.close();
		}
	});

	test('a pattern on a name inside the chain, and a file in a directory that is missing', async () => {
		const srv = await serve([`allow write ${tree.root}`, 'consent * **/deep',
		    'consent write_file scratch']);
		try {
			refusedByConsent(await call(srv, 'create_directory', { path: 'other/x/deep/y/z' }),
			    'consent * **/deep (line 2)', 'deep');
			// However long the chain.
			refusedByConsent(await call(srv, 'create_directory',
			    { path: `other/${'n/'.repeat(1000)}deep/z` }), 'consent * **/deep (line 2)',
			    'a thousand names down');
			await assert.rejects(fsp.stat(tree.p('other/x')), { code: 'ENOENT' });
			// Refused by consent before the child could say that the
			// directory does not exist.
			refusedByConsent(await call(srv, 'write_file', { path: 'to-scratch/new/n.txt',
			    content: 'november\n' }), 'consent write_file scratch (line 3)', 'write_file');
		} finally {
			await srv.close();
		}
	});

	test('a call with more paths than the server once kept is checked on every one', async () => {
		const secret = await makeTree({ 'secret/s.txt': 'sierra\n', 'a.txt': 'alpha\n' });
		try {
			const srv = await startServer(['--policy', await policy([`allow read ${secret.root}`,
			    'consent * secret'])], { server: HOSTILE });
			try {
				const paths = Array.from({ length: 40 }, () => 'a.txt');
				const r0 = await call(srv, 'many_paths', { paths });
				assert.notEqual(r0.isError, true, JSON.stringify(r0.content));
				for (const at of [0, 15, 16, 17, 39]) {
					const p = paths.slice();
					p[at] = 'secret/s.txt';
					refusedByConsent(await call(srv, 'many_paths', { paths: p }),
					    'consent * secret (line 2)', `secret at ${at}`);
				}
			} finally {
				await srv.close();
			}
		} finally {
			await secret.cleanup();
		}
	});
});

// --------------------------------------------------- a swap after the question

describe('what consent was given for is what the call reaches', () => {
	let tree;
	let token;

	before(async () => {
		token = secretToken();
		tree = await serverTree({
			'secret/a.txt': 'alpha\n',
			'secret/b.txt': `${token}\n`,
			'secret/d1/keep.txt': 'kilo\n',
			'secret/d2/keep.txt': 'kilo\n',
			'public/p.txt': 'papa\n',
			'swap/link': symlink('../secret/a.txt'),
			'swap/dir': symlink('../secret/d1'),
			'swap/plink': symlink('../public/p.txt'),
		});
	});
	after(() => tree?.cleanup());

	/* Points swap/NAME at TARGET again, as before() made it. */
	async function reset(name, target) {
		await fsp.rm(tree.p(`swap/${name}`), { force: true });
		await fsp.symlink(target, tree.p(`swap/${name}`));
		const as = runAs();
		if (as)
			execFileSync('chown', ['-h', `${as.uid}:${as.gid}`, tree.p(`swap/${name}`)]);
	}

	/* A hook that points swap/NAME at TARGET, then answers yes. */
	function swapper(name, target) {
		return hook([
			'cat > /dev/null',
			`ln -sfn '${target}' '${tree.p(`swap/${name}`)}.new'`,
			`mv -T '${tree.p(`swap/${name}`)}.new' '${tree.p(`swap/${name}`)}'`,
			'echo "swapped, and yes"',
			'exit 0',
		].join('\n'));
	}

	/* Asserts |r| was refused because its path changed after the question. */
	function changed(r, what) {
		assert.equal(r.isError, true, `${what}: ran: ${JSON.stringify(r.content)}`);
		assert.match(textOf(r), /changed after the call was checked/, what);
	}

	test('read_text_file: the link swapped by the hook is refused, not followed', async () => {
		await reset('link', '../secret/a.txt');
		const h = await swapper('link', '../secret/b.txt');
		const srv = await serve([`allow read ${tree.root}`, 'consent * secret',
		    `consent-hook ${h}`]);
		try {
			changed(await call(srv, 'read_text_file', { path: 'swap/link' }), 'read');
			assert.equal(await fsp.readlink(tree.p('swap/link')), '../secret/b.txt',
			    'the hook did not swap the link');
			assert.ok(!transcript(srv).includes(token), 'the other file was read');
			// Without a swap, the same call reads what it was asked about.
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'secret/a.txt' }),
			    'a.txt').content, 'alpha\n');
		} finally {
			await srv.close();
		}
	});

	test('read_multiple_files: every path of a call given consent is held to what it was', async () => {
		await reset('plink', '../public/p.txt');
		const h = await swapper('plink', '../secret/b.txt');
		const srv = await serve([`allow read ${tree.root}`, 'consent * secret/a.txt',
		    `consent-hook ${h}`]);
		try {
			const r = await call(srv, 'read_multiple_files', { paths: ['secret/a.txt',
			    'swap/plink'] });
			const files = ok(r, 'read_multiple_files').files;
			assert.equal(files[0].content, 'alpha\n');
			assert.equal(typeof files[1].error, 'string', `read: ${JSON.stringify(files[1])}`);
			assert.match(files[1].error, /changed after the call was checked/);
			assert.ok(!transcript(srv).includes(token), 'the other file was read');
		} finally {
			await srv.close();
		}
	});

	test('a walk from a directory link swapped by the hook is refused', async () => {
		await reset('dir', '../secret/d1');
		const h = await swapper('dir', '../secret/d2');
		const srv = await serve([`allow read ${tree.root}`, 'consent * secret',
		    `consent-hook ${h}`]);
		try {
			changed(await call(srv, 'directory_tree', { path: 'swap/dir' }), 'directory_tree');
		} finally {
			await srv.close();
		}
	});

	test('write_file into a directory link swapped by the hook is refused', async () => {
		await reset('dir', '../secret/d1');
		const h = await swapper('dir', '../secret/d2');
		const srv = await serve([`allow write ${tree.root}`, 'consent * secret',
		    `consent-hook ${h}`]);
		try {
			changed(await call(srv, 'write_file', { path: 'swap/dir/new.txt',
			    content: 'november\n' }), 'write_file');
			await assert.rejects(fsp.stat(tree.p('secret/d2/new.txt')), { code: 'ENOENT' });
			await assert.rejects(fsp.stat(tree.p('secret/d1/new.txt')), { code: 'ENOENT' });
		} finally {
			await srv.close();
		}
	});

	test('create_directory under a directory link swapped by the hook is refused', async () => {
		await reset('dir', '../secret/d1');
		const h = await swapper('dir', '../secret/d2');
		const srv = await serve([`allow write ${tree.root}`, 'consent * secret',
		    `consent-hook ${h}`]);
		try {
			changed(await call(srv, 'create_directory', { path: 'swap/dir/x/y' }),
			    'create_directory');
			await assert.rejects(fsp.stat(tree.p('secret/d2/x')), { code: 'ENOENT' });
		} finally {
			await srv.close();
		}
	});
});

// -------------------------------------------------------------- the walkers

describe('the walking tools leave out what needs a consent nobody gave', () => {
	let tree;

	before(async () => {
		tree = await serverTree({
			'a.txt': 'alpha sierra\n',
			'secret/s.txt': 'sierra\n',
			'secret/deep/t.txt': 'sierra tango\n',
			'proj/keys/k.txt': 'kilo sierra\n',
			'proj/src/m.txt': 'mike sierra\n',
		});
	});
	after(() => tree?.cleanup());

	test('directory_tree, search_files, search_file_contents and the listings', async () => {
		const srv = await serve([`allow read ${tree.root}`, 'consent * secret', 'consent * **/keys']);
		try {
			const t = ok(await call(srv, 'directory_tree', { path: '.' }), 'tree');
			assert.deepEqual(treeNames(t.tree), ['a.txt', 'proj', 'proj/src', 'proj/src/m.txt']);
			const f = ok(await call(srv, 'search_files', { path: '.', pattern: '*.txt' }), 'files');
			assert.deepEqual(f.matches, [tree.p('a.txt'), tree.p('proj/src/m.txt')]);
			const g = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'sierra' }),
			    'grep');
			assert.deepEqual(g.matches.map((m) => m.file), [tree.p('a.txt'),
			    tree.p('proj/src/m.txt')]);
			const l = ok(await call(srv, 'list_directory', { path: '.' }), 'list');
			assert.deepEqual(l.entries.map(entryName), ['a.txt', 'proj']);
			const s = ok(await call(srv, 'list_directory_with_sizes', { path: 'proj' }), 'sizes');
			assert.deepEqual(s.entries.map((e) => e.name), ['src']);
			const res = await srv.client.readResource({ uri: fileUri(tree.root) },
			    { timeout: CALL_TIMEOUT });
			assert.ok(!res.contents[0].text.includes('secret'), res.contents[0].text);
			assert.ok(!transcript(srv).includes('tango'), 'a file needing consent was read');
		} finally {
			await srv.close();
		}
	});

	test('a walk the person allowed shows what it was asked about, and only that', async () => {
		const h = await hook('cat > /dev/null\nexit 0');
		const srv = await serve([`allow read ${tree.root}`, 'consent * secret',
		    'consent * **/keys', 'consent directory_tree', `consent-hook ${h}`]);
		try {
			let t = ok(await call(srv, 'directory_tree', { path: 'secret' }), 'secret');
			assert.deepEqual(treeNames(t.tree), ['deep', 'deep/t.txt', 's.txt']);
			// Asked about the whole tree, not about what needs its
			// own rule's consent: that stays out.
			t = ok(await call(srv, 'directory_tree', { path: '.' }), 'the whole tree');
			assert.deepEqual(treeNames(t.tree), ['a.txt', 'proj', 'proj/src', 'proj/src/m.txt']);
		} finally {
			await srv.close();
		}
	});

	test('a yes for the session under a rule lets later walks show what it covers', async () => {
		const h = answering({ action: 'accept', content: { allow: true, session: true } });
		const srv = await serve([`allow read ${tree.root}`, 'consent * secret'],
		    { capabilities: { elicitation: {} }, handlers: [[ElicitRequestSchema, h]] });
		try {
			let t = ok(await call(srv, 'directory_tree', { path: '.' }), 'before');
			assert.ok(!treeNames(t.tree).includes('secret'));
			ok(await call(srv, 'directory_tree', { path: 'secret' }), 'asked');
			assert.equal(h.requests.length, 1);
			t = ok(await call(srv, 'directory_tree', { path: '.' }), 'after');
			assert.ok(treeNames(t.tree).includes('secret/s.txt'), treeNames(t.tree).join());
			assert.equal(h.requests.length, 1);
		} finally {
			await srv.close();
		}
	});

	test('move_file of a directory holding what needs consent is refused', async () => {
		const srv = await serve([`allow write ${tree.root}`, 'consent * **/keys']);
		try {
			const r = await call(srv, 'move_file', { source: 'proj', destination: 'proj2' });
			assert.equal(r.isError, true, JSON.stringify(r.content));
			assert.match(textOf(r), /needs consent/);
			assert.ok((await fsp.stat(tree.p('proj/keys/k.txt'))).isFile());
		} finally {
			await srv.close();
		}
	});
});
