// tools-policy.test.mjs: the policy's say over tools and paths, seen by the
// official client: 'tools' and 'tool NAME off' decide which tools are
// offered (a tool that is off is not listed, and a call to it is a call to
// an unknown tool); 'tool NAME timeout' and 'tool NAME limit' give one tool
// its own limits while the others keep the server's; 'deny' refuses paths
// whatever the allow lines say.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import { McpError } from '@modelcontextprotocol/sdk/types.js';

import {
	FS_POLICY_NAMES, FS_TOOL_NAMES, call, makeScratch, makeTree, runServer, startServer, symlink,
	textOf,
} from './lib.mjs';

const ALL = FS_TOOL_NAMES;
const FS_TOOLS = FS_POLICY_NAMES.join(', ');

let tree;
const base = await makeScratch('tools');	// policies
const { policy } = base;

/* Runs toolcell-fs --check on |lines|; returns {status, stdout, stderr, p}. */
async function check(lines) {
	const p = await policy(lines);
	return { ...await runServer(['--policy', p, '--check']), p };
}

/* Starts a server on a policy of |lines|. */
async function serve(lines) {
	return startServer(['--policy', await policy([`allow read ${tree.root}`, ...lines])]);
}

/* The names tools/list gives, in its order. */
async function listed(srv) {
	const { tools } = await srv.client.listTools();
	return tools.map((t) => t.name);
}

/* Asserts that calling |name| is refused as a call to an unknown tool. */
async function assertUnknown(srv, name, args = {}) {
	await assert.rejects(call(srv, name, args), (e) => {
		assert.ok(e instanceof McpError, String(e));
		assert.equal(e.code, -32602);
		assert.match(e.message, new RegExp(`unknown tool '${name}'`));
		return true;
	});
	// In raw form: a JSON-RPC error, not a tool result.
	const req = srv.sent.filter((m) => m.method === 'tools/call' && m.params.name === name).at(-1);
	const res = srv.messages.find((m) => m.id === req.id);
	assert.equal(res.result, undefined);
	assert.deepEqual(res.error, { code: -32602, message: `unknown tool '${name}'` });
}

/* Asserts |r| is a success; returns its structuredContent. */
function ok(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	return r.structuredContent;
}

before(async () => {
	const many = {};
	for (let i = 0; i < 100; i++)
		many[`many/entry-with-a-longish-name-${String(i).padStart(3, '0')}`] = '';
	tree = await makeTree({
		'a.txt': 'alpha\n',
		'big.txt': 'x'.repeat(8191) + '\n',
		...many,
		'secret/s.txt': 'sierra\n',
		'sub/c.txt': 'charlie\n',
		'sub/.env': 'API_KEY=1\n',
		'to-secret': symlink('secret/s.txt'),
		'notes.key': 'key\n',
	});
	// Reading this takes seconds: no newline to skip to in 64 GiB.
	const fh = await fsp.open(tree.p('huge'), 'w');
	await fh.truncate(64 * 2 ** 30);
	await fh.close();
	await fsp.chmod(tree.p('huge'), 0o644);
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

describe('which tools are offered', () => {
	test('without a tools line, every tool', async () => {
		const srv = await serve([]);
		try {
			assert.deepEqual(await listed(srv), ALL);
		} finally {
			await srv.close();
		}
	});

	test('tools NAME...: only those are listed, and the others are unknown', async () => {
		const srv = await serve(['tools read_text_file list_allowed_directories']);
		try {
			// read_file, an alias of read_text_file, comes with it.
			assert.deepEqual(await listed(srv), ['list_allowed_directories', 'read_text_file',
			    'read_file']);
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read')
			    .content, 'alpha\n');
			assert.equal(ok(await call(srv, 'read_file', { path: 'a.txt' }), 'read_file')
			    .content, 'alpha\n');
			ok(await call(srv, 'list_allowed_directories', {}), 'list_allowed');
			await assertUnknown(srv, 'list_directory', { path: '.' });
			await assertUnknown(srv, 'get_file_info', { path: 'a.txt' });
			// Serving goes on.
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
	});

	test('several tools lines add up', async () => {
		const srv = await serve(['tools read_text_file', 'tools get_file_info']);
		try {
			assert.deepEqual(await listed(srv), ['read_text_file', 'read_file', 'get_file_info']);
			ok(await call(srv, 'get_file_info', { path: 'a.txt' }), 'info');
		} finally {
			await srv.close();
		}
	});

	test('tool NAME off hides that tool only', async () => {
		const srv = await serve(['tool get_file_info off']);
		try {
			assert.deepEqual(await listed(srv), ALL.filter((n) => n !== 'get_file_info'));
			await assertUnknown(srv, 'get_file_info', { path: 'a.txt' });
			ok(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read_text_file');
		} finally {
			await srv.close();
		}
	});

	test('off wins over a tools line, whatever the order of the lines', async () => {
		for (const lines of [['tools read_text_file list_directory', 'tool list_directory off'],
		    ['tool list_directory off', 'tools read_text_file list_directory']]) {
			const srv = await serve(lines);
			try {
				assert.deepEqual(await listed(srv), ['read_text_file', 'read_file'],
				    lines.join('; '));
				await assertUnknown(srv, 'list_directory', { path: '.' });
			} finally {
				await srv.close();
			}
		}
	});

	test('a tool that is off is unknown even to a consent rule naming it', async () => {
		const srv = await serve(['tool list_directory off', 'consent list_directory']);
		try {
			await assertUnknown(srv, 'list_directory', { path: '.' });
		} finally {
			await srv.close();
		}
	});

	test('--check lists every tool, on or off and why, with its own limits', async () => {
		const r = await check([`allow read ${tree.root}`, 'tools read_text_file list_directory',
		    'tool list_directory off', 'tool read_text_file timeout 200ms',
		    'tool read_text_file limit output 1K', 'tool read_text_file limit memory 64M']);
		assert.equal(r.stderr, '');
		assert.equal(r.status, 0);
		assert.ok(r.stdout.includes([
			'tools:',
			'  list_allowed_directories    off  (not on the \'tools\' line, line 2)',
			'  read_text_file              on   timeout 200ms (line 4), memory 64M (line 6), output 1K (line 5)',
			'  read_file                   on   (an alias of read_text_file, which it follows)',
			'  list_directory              off  (tool list_directory off, line 3)',
			'  get_file_info               off  (not on the \'tools\' line, line 2)',
			...FS_POLICY_NAMES.slice(4).map((n) => `  ${n.padEnd(28)}off  (not on the 'tools' line, line 2)`),
			'  (a tool that changes files is listed only when a directory is writable)',
			'',
		].join('\n')), r.stdout);
		// The server's own limits are unchanged.
		assert.match(r.stdout, /^ {2}timeout {5}30s {5}\(default\)$/m);
		assert.match(r.stdout, /^ {2}output {6}64M {5}\(default\)$/m);
	});

	test('--check warns of a rule for a tool that is off, and of writing without a write tool', async () => {
		const scratch = await base.ownedDir();
		const r = await check([`allow read ${tree.root}`, `allow write ${scratch}`,
		    'tools list_allowed_directories read_text_file list_directory',
		    'consent write_file', 'tool delete_file timeout 1s', 'consent read_text_file']);
		assert.equal(r.status, 0, r.stderr);
		const w = (n, msg) => `toolcell-fs: warning: ${r.p}:${n}: ${msg}`;
		const off = 'is on no \'tools\' line (the first is line 3)';
		assert.equal(r.stderr, [
			w(4, `'consent write_file' never applies: write_file ${off}`),
			w(5, `'tool delete_file timeout' has no effect: delete_file ${off}`),
			w(2, `'${scratch}' is read-write, but every tool that changes files is off `
			    + '(write_file, ...): name them on a \'tools\' line, or serve it with '
			    + '\'allow read\''),
			'',
		].join('\n'));
		assert.match(r.stdout, /^ {2}write_file {18}off/m);
		// The same warnings at start; the server serves all the same.
		const srv = await startServer(['--policy', r.p]);
		try {
			assert.deepEqual(await listed(srv),
			    ['list_allowed_directories', 'read_text_file', 'read_file', 'list_directory']);
			assert.match(srv.stderr(), /warning: .*:4: 'consent write_file' never applies/);
		} finally {
			await srv.close();
		}
		// A rule for a tool that changes files, with no directory writable.
		const r2 = await check([`allow read ${tree.root}`, 'consent delete_file']);
		assert.equal(r2.status, 0);
		assert.equal(r2.stderr, `toolcell-fs: warning: ${r2.p}:2: 'consent delete_file' never `
		    + 'applies: delete_file is offered only when a directory is writable, and none is\n');
	});

	test('every mistake in tools and tool lines is reported, with its line', async () => {
		const r = await check([
			`allow read ${tree.root}`,
			'tools read_text_file nosuch',
			'tools',
			'tool',
			'tool get_file_info',
			'tool nosuch off',
			'tool list_directory off',
			'tool list_directory off',
			'tool read_text_file frob',
			'tool read_text_file timeout 0ms',
			'tool read_text_file timeout 2h',
			'tool get_file_info timeout 1s',
			'tool get_file_info timeout 2s',
			'tool read_text_file limit output 512',
			'tool read_text_file limit bogus 1',
			'tool read_text_file off now',
		]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		const e = (n, msg) => `toolcell-fs: error: ${r.p}:${n}: ${msg}`;
		assert.equal(r.stderr, [
			e(2, `tools: toolcell-fs has no tool 'nosuch' (it has: ${FS_TOOLS})`),
			e(3, 'tools: missing the names of the tools to enable'),
			e(4, 'tool: missing the tool\'s name'),
			e(5, 'tool get_file_info: missing \'off\', \'timeout\' or \'limit\''),
			e(6, `tool: toolcell-fs has no tool 'nosuch' (it has: ${FS_TOOLS})`),
			e(8, 'tool list_directory off: already set at line 7'),
			e(9, 'tool read_text_file: expected \'off\', \'timeout\' or \'limit\', not \'frob\''),
			e(10, 'tool read_text_file timeout: \'0ms\' is out of range: 1ms to 1h'),
			e(11, 'tool read_text_file timeout: \'2h\' is out of range: 1ms to 1h'),
			e(13, 'tool get_file_info timeout: already set at line 12'),
			e(14, 'tool read_text_file limit output: \'512\' is out of range: 1K to 1G'),
			e(15, 'tool read_text_file limit: unknown limit \'bogus\' (known: cpu, files, '
			    + 'filesize, memory, output, processes)'),
			e(16, 'tool read_text_file: unexpected \'now\' at the end of the line'),
			'toolcell-fs: 13 errors',
			'',
		].join('\n'));
	});
});

describe('per-tool limits', () => {
	test('tool read_text_file timeout: that tool, under either name, is stopped at its deadline', async () => {
		const srv = await serve(['timeout 2s', 'tool read_text_file timeout 200ms']);
		try {
			let t0 = Date.now();
			let r = await call(srv, 'read_text_file', { path: 'huge', offset: 1 });
			let ms = Date.now() - t0;
			assert.equal(r.isError, true);
			assert.equal(textOf(r), 'the call was stopped at its deadline of 200 ms');
			assert.ok(ms >= 190 && ms < 1900, `stopped after ${ms} ms`);
			// A normal call of the same tool still works.
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read')
			    .content, 'alpha\n');
			// The alias is the same tool: the same deadline.
			t0 = Date.now();
			r = await call(srv, 'read_file', { path: 'huge', offset: 1 });
			ms = Date.now() - t0;
			assert.equal(textOf(r), 'the call was stopped at its deadline of 200 ms');
			assert.ok(ms >= 190 && ms < 1900, `stopped after ${ms} ms`);
		} finally {
			await srv.close();
		}
	});

	test('tool read_text_file limit output 1K: a large read fails, other tools keep the server\'s limit', async () => {
		const srv = await serve(['tool read_text_file limit output 1K']);
		try {
			const r = await call(srv, 'read_text_file', { path: 'big.txt' });
			assert.equal(r.isError, true);
			assert.equal(textOf(r), 'the result exceeded the 1024-byte limit and was discarded; '
			    + 'ask for less at a time');
			assert.equal(r.structuredContent, undefined);
			// Small reads still fit.
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'a.txt' }), 'small')
			    .content, 'alpha\n');
			// The same file through the alias is limited too: the same tool.
			const f = await call(srv, 'read_file', { path: 'big.txt' });
			assert.equal(textOf(f), 'the result exceeded the 1024-byte limit and was '
			    + 'discarded; ask for less at a time');
			// A long listing is not.
			const lr = await call(srv, 'list_directory', { path: 'many' });
			assert.equal(ok(lr, 'list').entries.length, 100);
			// The whole answer, text and structured, is well past 1K.
			assert.ok(JSON.stringify(lr).length > 4096, `${JSON.stringify(lr).length} bytes`);
		} finally {
			await srv.close();
		}
	});

	test('a tool\'s limit may be above the server\'s', async () => {
		const srv = await serve(['limit output 1K', 'tool read_text_file limit output 64K']);
		try {
			const r = await call(srv, 'read_multiple_files', { paths: ['big.txt'] });
			assert.equal(textOf(r), 'the result exceeded the 1024-byte limit and was discarded; '
			    + 'ask for less at a time');
			const f = ok(await call(srv, 'read_text_file', { path: 'big.txt' }), 'read');
			assert.equal(f.content, 'x'.repeat(8191) + '\n');
		} finally {
			await srv.close();
		}
	});
});

describe('deny rules', () => {
	/* Asserts |r| is the refusal of |given| (the path as given) by |rule|. */
	function assertDenied(r, given, rule, what) {
		assert.equal(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
		assert.equal(textOf(r), `'${given}': denied by policy rule ${rule}`, what);
	}

	test('deny PATTERN refuses a path by its relative and its absolute name', async () => {
		const srv = await serve(['deny secret']);
		try {
			const abs = tree.p('secret/s.txt');
			for (const p of ['secret/s.txt', abs, `${tree.root}//secret/./s.txt`])
				assertDenied(await call(srv, 'read_text_file', { path: p }), p,
				    '\'deny secret\' (line 2)', p);
			assertDenied(await call(srv, 'get_file_info', { path: 'secret' }), 'secret',
			    '\'deny secret\' (line 2)', 'the directory itself');
			assertDenied(await call(srv, 'list_directory', { path: 'secret' }), 'secret',
			    '\'deny secret\' (line 2)', 'listing it');
			// What the rule does not match is served.
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'a.txt' }), 'a')
			    .content, 'alpha\n');
		} finally {
			await srv.close();
		}
	});

	test('a ".." or a symbolic link does not get around a deny rule', async () => {
		const srv = await serve(['deny secret']);
		try {
			for (const p of ['sub/../secret/s.txt', 'to-secret']) {
				const r = await call(srv, 'read_text_file', { path: p });
				assert.equal(r.isError, true, `${p}: ${JSON.stringify(r.content)}`);
				assert.ok(!JSON.stringify(r).includes('sierra'), `${p}: the file was read`);
			}
		} finally {
			await srv.close();
		}
	});

	test('the built-in rules deny secrets: .env, *.key', async () => {
		const srv = await serve([]);
		try {
			assertDenied(await call(srv, 'read_text_file', { path: 'sub/.env' }), 'sub/.env',
			    '\'deny **/.env\' (built in)', '.env');
			assertDenied(await call(srv, 'read_text_file', { path: 'notes.key' }),
			    'notes.key', '\'deny **/*.key\' (built in)', 'notes.key');
		} finally {
			await srv.close();
		}
	});

	test('default-deny off drops the built-in rules', async () => {
		const srv = await serve(['default-deny off']);
		try {
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'sub/.env' }), '.env')
			    .content, 'API_KEY=1\n');
		} finally {
			await srv.close();
		}
	});

	test('deny write leaves reading alone', async () => {
		const srv = await serve(['deny write secret']);
		try {
			assert.equal(ok(await call(srv, 'read_text_file', { path: 'secret/s.txt' }),
			    'read').content, 'sierra\n');
		} finally {
			await srv.close();
		}
	});

	test('a denied entry is left out of directory listings', async () => {
		const srv = await serve(['deny secret', 'deny **/c.txt']);
		try {
			const top = ok(await call(srv, 'list_directory', { path: '.' }), 'list .');
			assert.ok(!top.entries.some((e) => e.name === 'secret'),
			    JSON.stringify(top.entries.map((e) => e.name)));
			const sub = ok(await call(srv, 'list_directory', { path: 'sub' }), 'list sub');
			assert.deepEqual(sub.entries.map((e) => e.name), []);
		} finally {
			await srv.close();
		}
	});
});
