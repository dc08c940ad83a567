// resources.test.mjs: toolcell-fs offers each allowed directory as a
// resource (the directory) and a resource template (any file beneath it),
// and resources/read takes a file:// URI through the same path resolution,
// deny rules, consent and audit log as the tools, in a confined child.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	CALL_TIMEOUT, fifo, fileUri, logRecords, makeScratch, makeTree, startServer, symlink, until,
} from './lib.mjs';

let tree;
const base = await makeScratch('res');	// policies and logs
const { policy } = base;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0x00]);

/* Reads |uri|; returns the result, or the McpError thrown. */
async function read(srv, uri) {
	try {
		return await srv.client.readResource({ uri }, { timeout: CALL_TIMEOUT });
	} catch (e) {
		return e;
	}
}

/* Asserts |r| is a resource-not-found error for |uri| whose message matches |re|. */
function notFound(r, uri, re) {
	assert.ok(r instanceof Error, `expected an error, got ${JSON.stringify(r)}`);
	assert.equal(r.code, -32002, r.message);
	assert.match(r.message, re);
	assert.deepEqual(r.data, { uri });
}

before(async () => {
	tree = await makeTree({
		'proj/a.txt': 'alpha\n',
		'proj/notes.md': '# notes\n',
		'proj/img.png': PNG,
		'proj/latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
		'proj/.env': 'SECRET=1\n',
		'proj/sub/b.txt': 'bravo\n',
		'proj/odd/x\n[FILE] .env': 'odd\n',
		'proj/almost.txt': 'a'.repeat(8 * 2 ** 20 - 100),
		'proj/out': symlink('../other/o.txt'),
		'proj/pipe': fifo(),
		'other/o.txt': 'outside\n',
		'with space/w.txt': 'whiskey\n',
	});
	const fh = await fsp.open(tree.p('proj/big.txt'), 'w');
	await fh.truncate(9 * 2 ** 20);
	await fh.close();
	await fsp.chmod(tree.p('proj/big.txt'), 0o644);
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

describe('resources of toolcell-fs', () => {
	let srv;

	before(async () => {
		srv = await startServer(['--policy', await policy([`allow read ${tree.p('proj')}`,
		    `allow write "${tree.p('with space')}"`])]);
	});
	after(async () => {
		await srv?.close();
	});

	test('the capability is declared, with listChanged', () => {
		assert.deepEqual(srv.initResult.capabilities.resources, { listChanged: true });
	});

	test('each allowed directory is a resource and a template, percent-encoded', async () => {
		const { resources } = await srv.client.listResources();
		assert.deepEqual(resources, [
			{ uri: `${fileUri(tree.p('proj'))}/`, name: tree.p('proj'),
			  description: `Allowed directory ${tree.p('proj')} (read-only): reading it lists its entries`,
			  mimeType: 'inode/directory' },
			{ uri: `${fileUri(tree.p('with space'))}/`, name: tree.p('with space'),
			  description: `Allowed directory ${tree.p('with space')} (read-write): reading it lists its entries`,
			  mimeType: 'inode/directory' },
		]);
		assert.ok(resources[1].uri.includes('with%20space'), resources[1].uri);
		const { resourceTemplates } = await srv.client.listResourceTemplates();
		assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), [
			`${fileUri(tree.p('proj'))}/{+path}`, `${fileUri(tree.p('with space'))}/{+path}`]);
		assert.equal(resourceTemplates[0].name, `files in ${tree.p('proj')}`);
	});

	test('a text file is read whole, as text, with its MIME type', async () => {
		const uri = fileUri(tree.p('proj/a.txt'));
		assert.deepEqual(await read(srv, uri),
		    { contents: [{ uri, mimeType: 'text/plain', text: 'alpha\n' }] });
		const md = fileUri(tree.p('proj/notes.md'));
		assert.deepEqual(await read(srv, md),
		    { contents: [{ uri: md, mimeType: 'text/markdown', text: '# notes\n' }] });
	});

	test('a binary file, or text that is not UTF-8, comes as base64', async () => {
		const uri = fileUri(tree.p('proj/img.png'));
		const r = await read(srv, uri);
		assert.equal(r.contents.length, 1);
		assert.equal(r.contents[0].mimeType, 'image/png');
		assert.deepEqual(Buffer.from(r.contents[0].blob, 'base64'), PNG);
		const l1 = fileUri(tree.p('proj/latin1.txt'));
		const t = await read(srv, l1);
		assert.equal(t.contents[0].text, undefined);
		assert.deepEqual(Buffer.from(t.contents[0].blob, 'base64'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
	});

	test('a directory is read as its listing, denied entries left out', async () => {
		const uri = `${fileUri(tree.p('proj'))}/`;
		const r = await read(srv, uri);
		assert.equal(r.contents[0].mimeType, 'inode/directory');
		assert.equal(r.contents[0].text, '[FILE] a.txt\n[FILE] almost.txt\n[FILE] big.txt\n'
		    + '[FILE] img.png\n[FILE] latin1.txt\n[FILE] notes.md\n[DIR] odd\n[LINK] out\n'
		    + '[OTHER] pipe\n[DIR] sub\n');
		const sub = fileUri(tree.p('proj/sub'));
		assert.equal((await read(srv, sub)).contents[0].text, '[FILE] b.txt\n');
	});

	test('a file just under the cap is read whole', async () => {
		const uri = fileUri(tree.p('proj/almost.txt'));
		const r = await read(srv, uri);
		assert.equal(r.contents[0].text.length, 8 * 2 ** 20 - 100);
	});

	test('a name with a new line cannot pose as another entry in a listing', async () => {
		const uri = fileUri(tree.p('proj/odd'));
		assert.equal((await read(srv, uri)).contents[0].text, '[FILE] x\\u000A[FILE] .env\n');
		const l = await srv.client.callTool({ name: 'list_directory', arguments: { path: 'odd' } });
		assert.equal(l.content[0].text, '[FILE] x\\u000A[FILE] .env\n');
		assert.equal(l.structuredContent.entries[0], 'x\n[FILE] .env');
		const w = await srv.client.callTool({ name: 'list_directory_with_sizes', arguments: { path: 'odd' } });
		assert.ok(w.content[0].text.startsWith('[FILE] x\\u000A[FILE] .env'), w.content[0].text);
		assert.equal(w.structuredContent.entries[0].name, 'x\n[FILE] .env');
	});

	test('a path with a blank, percent-encoded, under a second directory', async () => {
		const uri = fileUri(tree.p('with space/w.txt'));
		assert.equal((await read(srv, uri)).contents[0].text, 'whiskey\n');
	});

	test('outside the directories, a symlink out, "..", denied and missing: not found, saying why', async () => {
		let uri = fileUri(tree.p('other/o.txt'));
		notFound(await read(srv, uri), uri, /outside the allowed directories/);
		uri = fileUri(tree.p('proj/out'));
		notFound(await read(srv, uri), uri, /out/);
		uri = `${fileUri(tree.p('proj'))}/../other/o.txt`;
		notFound(await read(srv, uri), uri, /outside|not found/);
		uri = fileUri(tree.p('proj/.env'));
		notFound(await read(srv, uri), uri, /denied by policy rule 'deny \*\*\/\.env' \(built in\)/);
		uri = fileUri(tree.p('proj/missing'));
		notFound(await read(srv, uri), uri, /not found/);
		uri = 'file:///proc/self/root/etc/passwd';
		notFound(await read(srv, uri), uri, /outside the allowed directories/);
	});

	test('a FIFO is refused without blocking; too big a file is refused, saying what to use', async () => {
		let uri = fileUri(tree.p('proj/pipe'));
		notFound(await read(srv, uri), uri, /not a regular file/);
		uri = fileUri(tree.p('proj/big.txt'));
		notFound(await read(srv, uri), uri,
		    /9437184 bytes, more than a resource read returns \(8388608\); use read_text_file/);
	});

	test('URIs that are not local file paths, and a missing uri', async () => {
		for (const uri of ['https://example.com/a.txt', 'file://host/a.txt', 'file:///a%00b']) {
			const r = await read(srv, uri);
			notFound(r, uri, /only file:\/\/ URIs of local paths are served/);
		}
		await assert.rejects(srv.client.request({ method: 'resources/read', params: {} },
		    (await import('@modelcontextprotocol/sdk/types.js')).ReadResourceResultSchema),
		    (e) => e.code === -32602 && /params\.uri/.test(e.message));
	});

	test('the resource handler is not a tool: not listed, not callable', async () => {
		const { tools } = await srv.client.listTools();
		assert.equal(tools.find((t) => t.name === 'read_resource'), undefined);
		await assert.rejects(srv.client.callTool({ name: 'read_resource', arguments: { path: 'a.txt' } }),
		    (e) => e.code === -32602 && /unknown tool 'read_resource'/.test(e.message));
	});
});

describe('resources in the policy', () => {
	test('"tool read_resource off": no capability, and the methods are not found', async () => {
		const srv = await startServer(['--policy', await policy([`allow read ${tree.p('proj')}`,
		    'tool read_resource off'])]);
		try {
			assert.equal(srv.initResult.capabilities.resources, undefined);
			const r = await srv.client.request({ method: 'resources/list', params: {} },
			    (await import('@modelcontextprotocol/sdk/types.js')).ListResourcesResultSchema)
			    .catch((e) => e);
			assert.equal(r.code, -32601);
		} finally {
			await srv.close();
		}
	});

	test('a read whose child fails is an internal error, not "not found", and serving goes on', async () => {
		// The child's result is larger than read_resource's output limit:
		// the server kills it and discards what it sent (run outcome
		// over-limit), which no retry of the same read can change.
		const srv = await startServer(['--policy', await policy([`allow read ${tree.p('proj')}`,
		    'tool read_resource limit output 1K'])]);
		try {
			const uri = fileUri(tree.p('proj/almost.txt'));
			const r = await read(srv, uri);
			assert.ok(r instanceof Error, `expected an error, got ${JSON.stringify(r).slice(0, 200)}`);
			assert.equal(r.code, -32603, r.message);
			assert.match(r.message, /the result exceeded the 1024-byte limit and was discarded/);
			assert.deepEqual(r.data, { uri });
			// The same server still tells a missing file from a failed read.
			const missing = fileUri(tree.p('proj/missing'));
			notFound(await read(srv, missing), missing, /not found/);
			// And it goes on serving: a read under the limit succeeds.
			const a = fileUri(tree.p('proj/a.txt'));
			assert.deepEqual(await read(srv, a),
			    { contents: [{ uri: a, mimeType: 'text/plain', text: 'alpha\n' }] });
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
	});

	test('consent rules apply to resources/read by the name read_resource', async () => {
		const srv = await startServer(['--policy', await policy([`allow read ${tree.p('proj')}`,
		    'consent read_resource'])]);
		try {
			const uri = fileUri(tree.p('proj/a.txt'));
			notFound(await read(srv, uri), uri, /nobody could be asked for consent/);
		} finally {
			await srv.close();
		}
	});

	test('the audit log records a read as a call of read_resource', async () => {
		const log = path.join(await base.ownedDir(), 'fs.jsonl');
		const srv = await startServer(['--policy', await policy([`allow read ${tree.p('proj')}`,
		    `audit ${log}`])]);
		try {
			await read(srv, fileUri(tree.p('proj/a.txt')));
		} finally {
			await srv.close();
		}
		const recs = await logRecords(log);
		const call = recs.find((r) => r.event === 'call');
		assert.equal(call.tool, 'read_resource');
		assert.deepEqual(call.args, { path: tree.p('proj/a.txt') });
		assert.equal(call.decision, 'run');
		assert.equal(recs.find((r) => r.event === 'result').outcome, 'ok');
	});

	test('the client\'s roots narrow the resources, and list_changed is sent', async () => {
		const { ListRootsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
		const srv = await startServer(['--policy', await policy([`allow read ${tree.p('proj')}`])],
		    { capabilities: { roots: { listChanged: true } }, listTools: false });
		// The SDK client answers roots/list with no roots by default
		// unless a handler is set; set one before anything is asked.
		srv.client.setRequestHandler(ListRootsRequestSchema, async () => ({
			roots: [{ uri: fileUri(tree.p('proj/sub')) }] }));
		await srv.client.sendRootsListChanged();
		try {
			await until(async () => {
				const { resources } = await srv.client.listResources();
				return resources.length === 1 && resources[0].name === tree.p('proj/sub');
			}, 5000, 'the resources narrowed to the client\'s root');
			const { resources } = await srv.client.listResources();
			assert.deepEqual(resources.map((r) => r.name), [tree.p('proj/sub')]);
			assert.ok(srv.messages.some((m) => m.method === 'notifications/resources/list_changed'));
			const uri = fileUri(tree.p('proj/a.txt'));
			notFound(await read(srv, uri), uri, /outside the allowed directories/);
		} finally {
			await srv.close();
		}
	});
});
