// roots.test.mjs: a client that declares the MCP roots capability is asked
// for its roots (roots/list) once it is initialized, and again whenever it
// says they changed; the server then serves the intersection of the
// client's roots with the policy's directories.  It never widens them: a
// client root outside every policy directory adds nothing, and one above a
// policy directory gives just that directory.  When nothing is left, the
// policy's "roots" line decides: the policy's directories stay (narrow, the
// default) or none is served (strict); "roots ignore" never asks.  Every
// refusal and list_allowed_directories say what the roots were and what
// they left.  Calls wait until the answer is applied, or until
// roots-timeout passes without one.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
	call, fileUri, logRecords, makeScratch, makeTree, runServer, serverCommand, serverIds,
	sleep, startServer, symlink, textOf, until, withTimeout,
} from './lib.mjs';

const ROOTS = { roots: { listChanged: true } };

let tree;
const base = await makeScratch('roots');	// policies, hooks and logs
const { policy } = base;

/* The default policy: proj read-only, scratch read-write. */
async function projPolicy(extra = []) {
	return policy([`allow read ${tree.p('proj')}`, `allow write ${tree.p('scratch')}`, ...extra]);
}

/*
 * A roots/list handler answering with |roots| (paths, made file:// URIs,
 * or {uri} objects as they are); h.set() changes the answer, h.requests
 * counts the requests.
 */
function rootsHandler(roots) {
	let current = roots;
	const h = async (req) => {
		h.requests.push(req);
		if (typeof current === 'function')
			return current(req);
		return { roots: current.map((r) => (typeof r === 'string' ? { uri: fileUri(r) } : r)) };
	};
	h.requests = [];
	h.set = (r) => { current = r; };
	return h;
}

/*
 * Starts toolcell-fs with |args| for a client declaring opts.capabilities,
 * with opts.roots as its roots/list handler.  Tools are not listed first:
 * the first request after initialize is the test's.
 */
function startClient(args, opts = {}) {
	return startServer(args, { capabilities: opts.capabilities, listTools: false,
	    handlers: opts.roots ? [[ListRootsRequestSchema, opts.roots]] : [] });
}

/* The directories list_allowed_directories gives. */
async function allowed(srv) {
	const r = await call(srv, 'list_allowed_directories', {});
	assert.notEqual(r.isError, true, JSON.stringify(r.content));
	return r.structuredContent.directories;
}

/* Reads |p|; returns its content, or throws with the tool's error text. */
async function read(srv, p) {
	const r = await call(srv, 'read_text_file', { path: p });
	if (r.isError)
		throw new Error(textOf(r));
	return r.structuredContent.content;
}

const RO = (p) => ({ path: p, access: 'read-only' });
const RW = (p) => ({ path: p, access: 'read-write' });

before(async () => {
	tree = await makeTree({
		'proj/top.txt': 'top\n',
		'proj/a/x.txt': 'xray\n',
		'proj/a/up': symlink('../b/y.txt'),
		'proj/b/y.txt': 'yankee\n',
		'proj/with space/w.txt': 'whiskey\n',
		'proj/pct%41/p.txt': 'papa\n',
		'scratch/s/z.txt': 'zulu\n',
		'other/o.txt': 'oscar\n',
	});
	// Served writable: the server's user's, or a start warns that calls
	// cannot write in it.
	const { uid, gid } = serverIds();
	await fsp.chown(tree.p('scratch'), uid, gid);
	// Reading this takes seconds (64 GiB of zeros, no newline to skip to).
	const fh = await fsp.open(tree.p('proj/huge'), 'w');
	await fh.truncate(64 * 2 ** 30);
	await fh.close();
	await fsp.chmod(tree.p('proj/huge'), 0o644);
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

describe('the client\'s roots narrow the policy\'s', () => {
	test('a root inside a policy directory: only it is served', async () => {
		const h = rootsHandler([tree.p('proj/a')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/a'))]);
			assert.equal(h.requests.length, 1);
			assert.equal(await read(srv, tree.p('proj/a/x.txt')), 'xray\n');
			// Relative paths are taken from the first root in force.
			assert.equal(await read(srv, 'x.txt'), 'xray\n');
			for (const p of [tree.p('proj/b/y.txt'), tree.p('proj/top.txt'),
			    tree.p('scratch/s/z.txt')])
				await assert.rejects(read(srv, p), /outside the allowed directories/, p);
		} finally {
			await srv.close();
		}
	});

	test('".." and symbolic links do not lead out of the narrowed root', async () => {
		const h = rootsHandler([tree.p('proj/a')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/a'))]);
			for (const p of ['../b/y.txt', `${tree.p('proj/a')}/../b/y.txt`, 'up', '../top.txt']) {
				const r = await call(srv, 'read_text_file', { path: p });
				assert.equal(r.isError, true, `${p}: ${JSON.stringify(r.content)}`);
				assert.ok(!textOf(r).includes('yankee') && !textOf(r).includes('top\n'), p);
			}
			const l = await call(srv, 'list_directory', { path: '..' });
			assert.equal(l.isError, true, JSON.stringify(l.content));
		} finally {
			await srv.close();
		}
	});

	test('a narrowed root keeps the access of the policy directory it lies in', async () => {
		const h = rootsHandler([tree.p('scratch/s'), tree.p('proj/b')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RW(tree.p('scratch/s')), RO(tree.p('proj/b'))]);
			assert.equal(await read(srv, 'z.txt'), 'zulu\n');
			assert.equal(await read(srv, tree.p('proj/b/y.txt')), 'yankee\n');
		} finally {
			await srv.close();
		}
	});

	test('a read-only directory inside a writable one stays read-only when narrowed', async () => {
		const h = rootsHandler([tree.p('scratch/s')]);
		const p = await policy([`allow write ${tree.p('scratch')}`, `allow read ${tree.p('scratch/s')}`]);
		const srv = await startClient(['--policy', p], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('scratch/s'))]);
			h.set([tree.p('scratch')]);
			await srv.client.sendRootsListChanged();
			assert.deepEqual(await allowed(srv), [RW(tree.p('scratch')), RO(tree.p('scratch/s'))]);
		} finally {
			await srv.close();
		}
	});

	test('a client root outside every policy directory adds nothing', async () => {
		const h = rootsHandler([tree.p('other'), tree.p('proj/a'), '/etc', base.root]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/a'))]);
			await assert.rejects(read(srv, tree.p('other/o.txt')), /outside the allowed directories/);
			await assert.rejects(read(srv, '/etc/hostname'), /outside the allowed directories/);
		} finally {
			await srv.close();
		}
	});

	test('a client root above the policy\'s directories gives just those', async () => {
		const h = rootsHandler([tree.root]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			await assert.rejects(read(srv, tree.p('other/o.txt')), /outside the allowed directories/);
			assert.equal(await read(srv, 'top.txt'), 'top\n');
		} finally {
			await srv.close();
		}
	});

	test('roots strict, client roots all outside: no directory is served, every path is refused', async () => {
		const h = rootsHandler([tree.p('other')]);
		const srv = await startClient(['--policy', await projPolicy(['roots strict'])],
		    { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), []);
			for (const p of [tree.p('proj/top.txt'), 'top.txt', tree.p('other/o.txt')]) {
				const r = await call(srv, 'read_text_file', { path: p });
				assert.equal(r.isError, true, `${p}: ${JSON.stringify(r.content)}`);
			}
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
	});

	test('roots strict, an empty list of roots serves nothing', async () => {
		const h = rootsHandler([]);
		const srv = await startClient(['--policy', await projPolicy(['roots strict'])],
		    { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), []);
			const r = await call(srv, 'read_text_file', { path: tree.p('proj/top.txt') });
			assert.equal(r.isError, true);
		} finally {
			await srv.close();
		}
	});

	test('file://localhost/ and percent-encoded URIs name local paths', async () => {
		const h = rootsHandler([
			{ uri: `file://localhost${tree.p('proj/a')}` },
			{ uri: fileUri(tree.p('proj/with space')) },
			{ uri: `file://${tree.p('proj/pct%2541')}` },
		]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/a')),
			    RO(tree.p('proj/with space')), RO(tree.p('proj/pct%41'))]);
			assert.equal(await read(srv, tree.p('proj/with space/w.txt')), 'whiskey\n');
			assert.equal(await read(srv, tree.p('proj/pct%41/p.txt')), 'papa\n');
		} finally {
			await srv.close();
		}
	});

	test('URIs that are not local file paths are left out', async () => {
		const h = rootsHandler([
			{ uri: 'https://example.com/' },
			{ uri: 'file://example.com/etc' },
			{ uri: 'file:relative/dir' },
			{ uri: `file://${tree.p('proj/a')}%00/../b` },
			{ uri: `file://${tree.p('proj/a')}%zz` },
			{ uri: `file://${tree.p('proj/nonexistent')}` },
			tree.p('proj/b'),
		]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/b'))]);
			await until(() => /client root 'https:\/\/example\.com\/' is not a file:\/\/ URI: left out/.test(srv.stderr()), 2000,
			    'the warning on stderr');
		} finally {
			await srv.close();
		}
	});

	test('a client root given twice is served once', async () => {
		const h = rootsHandler([tree.p('proj/a'), `${tree.p('proj/a')}/`, tree.p('proj/b/../a')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/a'))]);
		} finally {
			await srv.close();
		}
	});
});

describe('client roots that meet none of the policy\'s directories', () => {
	/* What the policy's directories are, as the notes list them. */
	const OWN = () => `${tree.p('proj')} (read-only), ${tree.p('scratch')} (read-write)`;

	/* Calls list_allowed_directories; returns its whole result. */
	async function listing(srv) {
		const r = await call(srv, 'list_allowed_directories', {});
		assert.notEqual(r.isError, true, JSON.stringify(r.content));
		return r;
	}

	test('by default the policy\'s directories stay, and list_allowed_directories says why', async () => {
		// A host started elsewhere (its working directory is its root).
		const h = rootsHandler([tree.p('other')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			const r = await listing(srv);
			const note = `The client's roots: ${tree.p('other')}. None of them is in or above a `
			    + 'directory the policy allows, so the policy\'s directories are served '
			    + `('roots narrow'): ${OWN()}.`;
			assert.deepEqual(r.structuredContent, {
				directories: [RO(tree.p('proj')), RW(tree.p('scratch'))],
				served: 'policy',
				client_roots: [tree.p('other')],
				note,
			});
			// Hosts that show the text half see the same.
			assert.equal(textOf(r), `Allowed directories:\n${tree.p('proj')} (read-only)\n`
			    + `${tree.p('scratch')} (read-write)\n${note}\n`);
			assert.equal(await read(srv, 'top.txt'), 'top\n');
			assert.equal(await read(srv, tree.p('scratch/s/z.txt')), 'zulu\n');
			// Still the ceiling: the client's own directory is not served.
			await assert.rejects(read(srv, tree.p('other/o.txt')),
			    (e) => e.message === `'${tree.p('other/o.txt')}': outside the allowed directories. ${note}`);
			await until(() => srv.stderr().includes(`warning: ${note}`), 2000, 'the warning on stderr');
		} finally {
			await srv.close();
		}
	});

	test('by default an empty list of roots keeps the policy\'s directories too', async () => {
		const h = rootsHandler([]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			const r = await listing(srv);
			assert.deepEqual(r.structuredContent.directories, [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.deepEqual(r.structuredContent.client_roots, []);
			assert.match(r.structuredContent.note, /^The client's roots: none\. None of them is in or above/);
		} finally {
			await srv.close();
		}
	});

	test('roots strict: nothing is served, and every refusal says what the roots were and why', async () => {
		const h = rootsHandler([tree.p('other'), '/nonexistent/dir']);
		const srv = await startClient(['--policy', await projPolicy(['roots strict'])],
		    { capabilities: ROOTS, roots: h });
		try {
			const note = `The client's roots: ${tree.p('other')}, /nonexistent/dir. None of them is `
			    + `in or above a directory the policy allows (${tree.p('proj')}, ${tree.p('scratch')}), `
			    + 'and with \'roots strict\' nothing is served then: start the client in or under one '
			    + 'of those directories, or set \'roots narrow\' in the policy.';
			const r = await listing(srv);
			assert.deepEqual(r.structuredContent, {
				directories: [], served: 'none',
				client_roots: [tree.p('other'), '/nonexistent/dir'], note,
			});
			assert.equal(textOf(r), `Allowed directories: none\n${note}\n`);
			for (const [tool, args, p] of [
				['read_text_file', { path: 'top.txt' }, 'top.txt'],
				['list_directory', { path: tree.p('proj') }, tree.p('proj')],
				['directory_tree', { path: '.' }, '.'],
				['get_file_info', { path: 'top.txt' }, 'top.txt'],
				['read_media_file', { path: 'top.txt' }, 'top.txt'],
			]) {
				const e = await call(srv, tool, args);
				assert.equal(e.isError, true, `${tool}: ${JSON.stringify(e)}`);
				assert.equal(textOf(e), `'${p}': no allowed directories. ${note}`, tool);
			}
		} finally {
			await srv.close();
		}
	});

	test('narrowed: a refusal names the roots and what they left', async () => {
		const h = rootsHandler([tree.p('proj/a')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			const note = `The client's roots: ${tree.p('proj/a')}. They narrow the policy's `
			    + `directories (${tree.p('proj')}, ${tree.p('scratch')}) to those served: `
			    + `${tree.p('proj/a')} (read-only).`;
			const r = await listing(srv);
			assert.equal(r.structuredContent.served, 'narrowed');
			assert.equal(r.structuredContent.note, note);
			await assert.rejects(read(srv, tree.p('proj/top.txt')),
			    (e) => e.message === `'${tree.p('proj/top.txt')}': outside the allowed directories. ${note}`);
		} finally {
			await srv.close();
		}
	});

	test('from kept to narrowed and back, as the roots change', async () => {
		const h = rootsHandler([tree.p('other')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			h.set([tree.p('proj/b')]);
			await srv.client.sendRootsListChanged();
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/b'))]);
			await assert.rejects(read(srv, tree.p('proj/top.txt')), /outside the allowed directories/);
			h.set([tree.p('other')]);
			await srv.client.sendRootsListChanged();
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.equal(await read(srv, tree.p('proj/top.txt')), 'top\n');
			h.set([tree.p('scratch/s')]);
			await srv.client.sendRootsListChanged();
			assert.deepEqual(await allowed(srv), [RW(tree.p('scratch/s'))]);
		} finally {
			await srv.close();
		}
	});

	test('the policy\'s deny rules still hold when its directories are kept', async () => {
		const h = rootsHandler([tree.p('other')]);
		const srv = await startClient(['--policy', await projPolicy(['deny b'])],
		    { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			await assert.rejects(read(srv, tree.p('proj/b/y.txt')), /deny b/);
			assert.equal(await read(srv, tree.p('proj/a/x.txt')), 'xray\n');
		} finally {
			await srv.close();
		}
	});

	test('roots ignore: the client is never asked, calls do not wait, and the policy\'s are served', async () => {
		const h = rootsHandler(() => new Promise(() => {}));	// would hold every call
		const srv = await startClient(['--policy', await projPolicy(['roots ignore', 'roots-timeout 1m'])],
		    { capabilities: ROOTS, roots: h });
		try {
			const r = await withTimeout(listing(srv), 5000, 'a call under roots ignore');
			assert.deepEqual(r.structuredContent, { directories: [RO(tree.p('proj')), RW(tree.p('scratch'))] });
			assert.equal(h.requests.length, 0);
			assert.ok(!srv.messages.some((m) => m.method === 'roots/list'), 'roots/list was sent');
			await srv.client.sendRootsListChanged();
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.equal(h.requests.length, 0);
		} finally {
			await srv.close();
		}
	});

	test('many long roots: the note is cut, and says so', async () => {
		const many = Array.from({ length: 400 }, (_, i) => `${tree.p('other')}/${'d'.repeat(40)}${i}`);
		const h = rootsHandler(many);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			const r = await listing(srv);
			assert.equal(r.structuredContent.client_roots.length, 400);
			assert.ok(r.structuredContent.note.endsWith('\u2026'), r.structuredContent.note.slice(-80));
			assert.ok(Buffer.byteLength(r.structuredContent.note) < 1024);
			assert.deepEqual(r.structuredContent.directories, [RO(tree.p('proj')), RW(tree.p('scratch'))]);
		} finally {
			await srv.close();
		}
	});

	test('roots in the policy: --check shows it; a bad value is refused', async () => {
		let r = await runServer(['--policy', await projPolicy(), '--check']);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, /^roots: narrow {2}\(default\)$/m);
		for (const v of ['narrow', 'strict', 'ignore']) {
			r = await runServer(['--policy', await projPolicy([`roots ${v}`]), '--check']);
			assert.equal(r.status, 0, r.stderr);
			assert.match(r.stdout, new RegExp(`^roots: ${v} {2}\\(line 3\\)$`, 'm'));
		}
		const p = await projPolicy(['roots wide']);
		r = await runServer(['--policy', p, '--check']);
		assert.equal(r.status, 1);
		assert.equal(r.stderr, `toolcell-fs: error: ${p}:3: roots: expected 'narrow' (the client's `
		    + 'roots narrow the directories, unless that leaves none), \'strict\' (even to none) or '
		    + '\'ignore\', not \'wide\'\ntoolcell-fs: 1 error\n');
		const twice = await projPolicy(['roots strict', 'roots narrow']);
		r = await runServer(['--policy', twice, '--check']);
		assert.equal(r.status, 1);
		assert.match(r.stderr, /:4: roots: already set at line 3\n/);
	});
});

describe('asking for the roots', () => {
	test('a client without the roots capability is never asked, and gets the policy\'s', async () => {
		const srv = await startClient(['--policy', await projPolicy()]);
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.ok(!srv.messages.some((m) => m.method === 'roots/list'), 'roots/list was sent');
		} finally {
			await srv.close();
		}
	});

	test('roots/list is asked once, after initialized', async () => {
		const h = rootsHandler([tree.p('proj/a')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			await allowed(srv);
			await sleep(100);
			const asks = srv.messages.filter((m) => m.method === 'roots/list');
			assert.equal(asks.length, 1);
			assert.ok(asks[0].id !== undefined, 'roots/list is a request');
		} finally {
			await srv.close();
		}
	});

	test('notifications/roots/list_changed: asked again, narrowed from the policy anew', async () => {
		const h = rootsHandler([tree.p('proj/a')]);
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/a'))]);
			// proj/b is outside the roots in force, but inside the policy's.
			h.set([tree.p('proj/b'), tree.p('scratch')]);
			await srv.client.sendRootsListChanged();
			// The next call waits for the new answer, so no polling is needed.
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/b')), RW(tree.p('scratch'))]);
			assert.equal(h.requests.length, 2);
			assert.equal(await read(srv, tree.p('proj/b/y.txt')), 'yankee\n');
			await assert.rejects(read(srv, tree.p('proj/a/x.txt')), /outside the allowed directories/);
			// And wider again: back to everything the policy allows.
			h.set([tree.root]);
			await srv.client.sendRootsListChanged();
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.equal(h.requests.length, 3);
		} finally {
			await srv.close();
		}
	});

	test('new roots are applied once the running calls have finished', async () => {
		const h = rootsHandler([tree.p('proj')]);
		const srv = await startClient(['--policy', await projPolicy(['timeout 1s'])],
		    { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj'))]);
			const t0 = Date.now();
			const slow = call(srv, 'read_text_file', { path: 'huge', offset: 1 });
			await sleep(100);
			h.set([tree.p('proj/a')]);
			await srv.client.sendRootsListChanged();
			const dirs = await allowed(srv);
			const ms = Date.now() - t0;
			const r = await slow;
			assert.equal(textOf(r), 'the call was stopped at its deadline of 1000 ms');
			assert.deepEqual(dirs, [RO(tree.p('proj/a'))]);
			assert.ok(ms >= 900, `the call after list_changed ran after ${ms} ms, while the `
			    + 'slow call still ran under the old roots');
		} finally {
			await srv.close();
		}
	});

	test('no answer within roots-timeout: calls wait, then run under the policy\'s directories', async () => {
		const h = rootsHandler(() => new Promise(() => {}));
		const p = await projPolicy(['roots-timeout 700ms']);
		const t0 = Date.now();
		const srv = await startClient(['--policy', p], { capabilities: ROOTS, roots: h });
		try {
			// Pings are answered meanwhile, before the call waiting for
			// the roots.
			const order = [];
			const waiting = allowed(srv).then((d) => { order.push('call'); return d; });
			const ping = srv.client.ping().then((r) => { order.push('ping'); return r; });
			assert.deepEqual(await withTimeout(ping, 5000, 'ping'), {});
			const dirs = await waiting;
			const ms = Date.now() - t0;
			assert.deepEqual(order, ['ping', 'call']);
			assert.deepEqual(dirs, [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.ok(ms >= 650 && ms < 5000, `the first call ran after ${ms} ms`);
			assert.equal(h.requests.length, 1);
			// Later calls do not wait.
			const t1 = Date.now();
			assert.equal(await read(srv, 'top.txt'), 'top\n');
			assert.ok(Date.now() - t1 < 500, `a later call took ${Date.now() - t1} ms`);
			await until(() => /no answer to roots\/list within 700 ms: serving the roots in force/.test(srv.stderr()), 2000,
			    'the warning on stderr');
		} finally {
			await srv.close();
		}
	});

	test('a call sent before the roots are known is decided under them, consent included', async () => {
		// Under the policy's directory x.txt names proj/x.txt, which no
		// rule asks about; under the client's root it names proj/a/x.txt,
		// which a consent rule covers.  The call is asked about as what
		// it will run on.
		const hk = base.unique('deny', '.sh');
		await fsp.writeFile(hk, '#!/bin/sh\necho "not that one"\nexit 1\n');
		await fsp.chmod(hk, 0o755);
		const h = rootsHandler(() => sleep(300).then(() => ({ roots: [{ uri: fileUri(tree.p('proj/a')) }] })));
		const p = await projPolicy([`consent read_text_file ${tree.p('proj/a')}/**`, `consent-hook ${hk}`]);
		const srv = await startClient(['--policy', p], { capabilities: ROOTS, roots: h });
		try {
			const r = await call(srv, 'read_text_file', { path: 'x.txt' });
			assert.equal(r.isError, true, JSON.stringify(r));
			assert.match(textOf(r), /not that one/);
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj/a'))]);
		} finally {
			await srv.close();
		}
	});

	/* Starts toolcell-fs with |args| for a client that speaks raw JSON-RPC;
	 * returns {send, next(pred), got, stderr(), close()}. */
	async function rawClient(args) {
		const cmd = await serverCommand(args);
		const transport = new StdioClientTransport({
			command: cmd.command, args: cmd.args, stderr: 'pipe',
		});
		let errText = '';
		transport.stderr.setEncoding('utf8');
		transport.stderr.on('data', (t) => { errText += t; });
		const got = [];
		transport.onmessage = (m) => got.push(m);
		await transport.start();
		return {
			got,
			send: (m) => transport.send({ jsonrpc: '2.0', ...m }),
			next: (pred, what) => until(() => got.find(pred), 5000, what),
			stderr: () => errText,
			close: () => transport.close(),
		};
	}

	const INIT = { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18',
	    capabilities: ROOTS, clientInfo: { name: 'early', version: '1' } } };

	test('a call sent between initialize and initialized waits for the roots', async () => {
		const c = await rawClient(['--policy', await projPolicy()]);
		try {
			await c.send(INIT);
			await c.next((m) => m.id === 1, 'the initialize result');
			await c.send({ id: 2, method: 'tools/call', params: { name: 'read_text_file',
			    arguments: { path: 'x.txt' } } });
			await sleep(300);
			assert.equal(c.got.find((m) => m.id === 2), undefined, 'answered before the roots');
			assert.equal(c.got.find((m) => m.method === 'roots/list'), undefined,
			    'roots/list before initialized');
			await c.send({ method: 'notifications/initialized' });
			const ask = await c.next((m) => m.method === 'roots/list', 'roots/list');
			await c.send({ id: ask.id, result: { roots: [{ uri: fileUri(tree.p('proj/a')) }] } });
			const r = await c.next((m) => m.id === 2, 'the call\'s answer');
			assert.equal(r.result.structuredContent.content, 'xray\n', JSON.stringify(r));
		} finally {
			await c.close();
		}
	});

	test('no initialized within roots-timeout: the early call runs under the policy\'s directories', async () => {
		const c = await rawClient(['--policy', await projPolicy(['roots-timeout 500ms'])]);
		try {
			await c.send(INIT);
			await c.next((m) => m.id === 1, 'the initialize result');
			const t0 = Date.now();
			await c.send({ id: 2, method: 'tools/call', params: { name: 'read_text_file',
			    arguments: { path: 'top.txt' } } });
			const r = await c.next((m) => m.id === 2, 'the call\'s answer');
			const ms = Date.now() - t0;
			assert.equal(r.result.structuredContent.content, 'top\n', JSON.stringify(r));
			assert.ok(ms >= 450 && ms < 5000, `answered after ${ms} ms`);
			await until(() => /tools\/call before notifications\/initialized, which did not come within 500 ms/
			    .test(c.stderr()), 2000, 'the warning on stderr');
		} finally {
			await c.close();
		}
	});

	test('list_changed over and over does not keep calls waiting past roots-timeout', async () => {
		const h = rootsHandler(() => new Promise(() => {}));
		const p = await projPolicy(['roots-timeout 700ms']);
		const srv = await startClient(['--policy', p], { capabilities: ROOTS, roots: h });
		try {
			await allowed(srv);		// the first ask timed out
			await srv.client.sendRootsListChanged();
			let spamming = true;
			const spam = (async () => {
				while (spamming) {
					await sleep(150);
					await srv.client.sendRootsListChanged();
				}
			})();
			const t0 = Date.now();
			const dirs = await allowed(srv);
			const ms = Date.now() - t0;
			spamming = false;
			await spam;
			assert.deepEqual(dirs, [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.ok(ms < 2500, `the call waited ${ms} ms while the client kept saying its roots changed`);
		} finally {
			await srv.close();
		}
	});

	test('an answer after roots-timeout is ignored', async () => {
		const h = rootsHandler(() => sleep(900).then(() => ({ roots: [{ uri: fileUri(tree.p('proj/a')) }] })));
		const p = await projPolicy(['roots-timeout 300ms']);
		const srv = await startClient(['--policy', p], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			// The late answer is sent before the next call, so the server
			// reads it first.
			const ask = srv.messages.find((m) => m.method === 'roots/list');
			await until(() => srv.sent.some((m) => m.id === ask.id && m.result), 5000,
			    'the late answer to roots/list');
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
		} finally {
			await srv.close();
		}
	});

	test('an error answer: the policy\'s directories, without waiting for the timeout', async () => {
		const h = rootsHandler(() => { throw new Error('roots are secret'); });
		const p = await projPolicy(['roots-timeout 10s']);
		const t0 = Date.now();
		const srv = await startClient(['--policy', p], { capabilities: ROOTS, roots: h });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
			assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
			await until(() => /roots\/list failed \(roots are secret\): serving the policy's directories/.test(srv.stderr()), 2000,
			    'the warning on stderr');
		} finally {
			await srv.close();
		}
	});

	test('the roots capability without a handler (method not found): the policy\'s directories', async () => {
		const srv = await startClient(['--policy', await projPolicy()], { capabilities: ROOTS });
		try {
			assert.deepEqual(await allowed(srv), [RO(tree.p('proj')), RW(tree.p('scratch'))]);
		} finally {
			await srv.close();
		}
	});

	test('roots-timeout in the policy: --check shows it, and its bounds', async () => {
		for (const [v, ok] of [['100ms', true], ['1m', true], ['99ms', false], ['61s', false]]) {
			const p = await projPolicy([`roots-timeout ${v}`]);
			const r = await runServer(['--policy', p, '--check']);
			if (ok) {
				assert.equal(r.status, 0, r.stderr);
				assert.match(r.stdout, new RegExp(`^roots-timeout: ${v}  \\(line 3\\)$`, 'm'));
			} else {
				assert.equal(r.status, 1);
				assert.equal(r.stderr, `toolcell-fs: error: ${p}:3: roots-timeout: '${v}' is out `
				    + 'of range: 100ms to 1m\ntoolcell-fs: 1 error\n');
			}
		}
	});

	test('the audit log records each set of roots applied', async () => {
		const log = path.join(await base.ownedDir(), 'audit.jsonl');
		const h = rootsHandler([tree.p('proj/a'), tree.p('other')]);
		const srv = await startClient(['--policy', await projPolicy([`audit ${log}`])],
		    { capabilities: ROOTS, roots: h });
		try {
			await allowed(srv);
			h.set([tree.p('scratch')]);
			await srv.client.sendRootsListChanged();
			await allowed(srv);
		} finally {
			await srv.close();
		}
		const roots = (await logRecords(log)).filter((r) => r.event === 'roots');
		assert.deepEqual(roots.map((r) => [r.client, r.in_force]), [
			[[tree.p('proj/a'), tree.p('other')], [RO(tree.p('proj/a'))]],
			[[tree.p('scratch')], [RW(tree.p('scratch'))]],
		]);
	});
});
