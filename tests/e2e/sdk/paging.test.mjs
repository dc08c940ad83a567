// paging.test.mjs: what a read or a listing says about where it stopped.
// read_text_file's truncated and next_offset agree: a read that stops
// before the end of the file (head, limit or max_bytes) is truncated and
// says where to continue, one that reaches it is not and does not; a tail
// cut by max_bytes is truncated and has nothing to continue forward.  The
// path a tool reports is the directory's own for ".", not "ROOT/.".
// read_multiple_files takes up to 1,024 paths, and the deny and consent
// rules still see every one of them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { call, makeScratch, makeTree, startServer, textOf } from './lib.mjs';

const MULTI_MAX = 1024;

let tree;
const base = await makeScratch('paging');

before(async () => {
	const spec = {
		'three.txt': 'a\nb\nc\n',
		'nonl.txt': 'a\nb',
		'sub/s.txt': 's\n',
		'.env': 'SECRET=paging-token\n',
		'ask.txt': 'needs a yes\n',
	};
	for (let i = 0; i < 8; i++)
		spec[`many/f${i}.txt`] = `${i}\n`;
	tree = await makeTree(spec);
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

/* Asserts |r| is a success; returns its structuredContent. */
function ok(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	return r.structuredContent;
}

describe('read_text_file: truncated and next_offset agree', () => {
	let srv;
	before(async () => {
		srv = await startServer([tree.root]);
	});
	after(async () => {
		await srv?.close();
	});

	// [arguments, lines returned, truncated, next_offset]
	const cases = [
		[{ path: 'three.txt', head: 1 }, 1, true, 1],
		[{ path: 'three.txt', head: 2 }, 2, true, 2],
		[{ path: 'three.txt', head: 3 }, 3, false, undefined],
		[{ path: 'three.txt', head: 9 }, 3, false, undefined],
		[{ path: 'three.txt', limit: 1 }, 1, true, 1],
		[{ path: 'three.txt', offset: 1, limit: 1 }, 1, true, 2],
		[{ path: 'three.txt', offset: 1, limit: 2 }, 2, false, undefined],
		[{ path: 'three.txt', offset: 2 }, 1, false, undefined],
		[{ path: 'three.txt', offset: 3 }, 0, false, undefined],
		[{ path: 'three.txt', offset: 7 }, 0, false, undefined],
		[{ path: 'three.txt', max_bytes: 2 }, 1, true, 1],
		[{ path: 'three.txt', offset: 1, max_bytes: 4 }, 2, false, undefined],
		[{ path: 'three.txt', head: 2, max_bytes: 2 }, 1, true, 1],
		[{ path: 'nonl.txt', head: 1 }, 1, true, 1],
		[{ path: 'nonl.txt', head: 2 }, 2, false, undefined],
		[{ path: 'three.txt', tail: 1 }, 1, false, undefined],
		[{ path: 'three.txt', tail: 3 }, 3, false, undefined],
		[{ path: 'three.txt', tail: 3, max_bytes: 4 }, 2, true, undefined],
	];
	for (const [args, lines, truncated, next] of cases) {
		test(JSON.stringify(args), async () => {
			const sc = ok(await call(srv, 'read_text_file', args), JSON.stringify(args));
			assert.equal(sc.lines, lines, 'lines');
			assert.equal(sc.truncated, truncated, 'truncated');
			assert.equal(sc.next_offset, next, 'next_offset');
			if (args.tail === undefined)
				assert.equal(sc.truncated, sc.next_offset !== undefined,
				    'a forward read is truncated exactly when it has a next_offset');
		});
	}

	test('a tail cut by max_bytes says to raise it', async () => {
		const r = await call(srv, 'read_text_file', { path: 'three.txt', tail: 3, max_bytes: 4 });
		assert.match(JSON.stringify(r.content), /raise max_bytes/);
	});

	test('paging with limit until truncated is false reads the whole file', async () => {
		let got = '';
		let offset = 0;
		for (let i = 0; i < 10; i++) {
			const sc = ok(await call(srv, 'read_text_file', { path: 'three.txt', offset, limit: 1 }),
			    `offset ${offset}`);
			got += sc.content;
			if (!sc.truncated)
				break;
			offset = sc.next_offset;
		}
		assert.equal(got, 'a\nb\nc\n');
	});

	test('read_multiple_files: the same for each file', async () => {
		const sc = ok(await call(srv, 'read_multiple_files',
		    { paths: ['three.txt', 'nonl.txt', 'three.txt'], max_bytes: 2 }), 'multi');
		for (const f of sc.files)
			assert.equal(f.truncated, f.next_offset !== undefined, JSON.stringify(f));
		assert.deepEqual(sc.files.map((f) => [f.truncated, f.next_offset]),
		    [[true, 1], [true, 1], [true, 1]]);
		const whole = ok(await call(srv, 'read_multiple_files', { paths: ['three.txt'] }), 'whole');
		assert.equal(whole.files[0].truncated, false);
		assert.equal(whole.files[0].next_offset, undefined);
	});
});

describe('a directory named "." is reported as itself', () => {
	let srv;
	before(async () => {
		srv = await startServer([tree.root]);
	});
	after(async () => {
		await srv?.close();
	});

	for (const [given, rel] of [['.', ''], ['./', ''], ['./.', ''], ['sub/.', 'sub'], ['./sub', 'sub'],
	    ['sub//', 'sub'], ['.//sub/./', 'sub']]) {
		test(`"${given}"`, async () => {
			const want = tree.p(rel);
			for (const tool of ['list_directory', 'list_directory_with_sizes', 'get_file_info',
			    'directory_tree'])
				assert.equal(ok(await call(srv, tool, { path: given }), tool).path, want, tool);
			assert.ok(textOf(await call(srv, 'get_file_info', { path: given })).includes(want));
		});
	}

	test('a file under "./" too', async () => {
		const sc = ok(await call(srv, 'read_text_file', { path: './sub/./s.txt' }), 'read');
		assert.equal(sc.path, tree.p('sub/s.txt'));
	});
});

describe(`read_multiple_files takes up to ${MULTI_MAX} paths`, () => {
	/* MULTI_MAX paths over the eight files, with |at| (index) => path. */
	const paths = (at = {}) => Array.from({ length: MULTI_MAX },
	    (_, i) => at[i] ?? `many/f${i % 8}.txt`);

	test('its schema says so', async () => {
		const srv = await startServer([tree.root]);
		try {
			const { tools } = await srv.client.listTools();
			const t = tools.find((x) => x.name === 'read_multiple_files');
			assert.equal(t.inputSchema.properties.paths.maxItems, MULTI_MAX);
		} finally {
			await srv.close();
		}
	});

	test(`${MULTI_MAX} are read, one more is refused`, async () => {
		const srv = await startServer([tree.root]);
		try {
			const sc = ok(await call(srv, 'read_multiple_files', { paths: paths() }), 'all');
			assert.equal(sc.files.length, MULTI_MAX);
			assert.equal(sc.errors, 0);
			assert.deepEqual(sc.files.map((f) => f.content), paths().map((p) => `${p.at(-5)}\n`));
			const r = await call(srv, 'read_multiple_files', { paths: [...paths(), 'three.txt'] });
			assert.equal(r.isError, true);
			assert.match(textOf(r), new RegExp(`paths.*more than ${MULTI_MAX}`));
		} finally {
			await srv.close();
		}
	});

	test('a denied path at index 500 is still refused, and only it', async () => {
		const srv = await startServer([tree.root]);
		try {
			const r = await call(srv, 'read_multiple_files', { paths: paths({ 500: '.env' }) });
			const sc = ok(r, 'deny at 500');
			assert.equal(sc.errors, 1);
			assert.match(sc.files[500].error, /denied/);
			assert.equal(sc.files[500].content, undefined);
			assert.equal(sc.files[499].content, '3\n');
			assert.ok(!JSON.stringify(r).includes('paging-token'), 'the denied file was read');
		} finally {
			await srv.close();
		}
	});

	test('a path at index 500 that needs consent makes the call ask (and here be denied)', async () => {
		const p = await base.policy([`allow read ${tree.root}`,
		    `consent read_multiple_files ${tree.p('ask.txt')}`]);
		const srv = await startServer(['--policy', p]);
		try {
			const r = await call(srv, 'read_multiple_files', { paths: paths({ 500: 'ask.txt' }) });
			assert.equal(r.isError, true, JSON.stringify(r).slice(0, 300));
			assert.match(textOf(r), /consent/);
			assert.ok(!JSON.stringify(r).includes('needs a yes'));
			const without = ok(await call(srv, 'read_multiple_files', { paths: paths() }), 'no consent needed');
			assert.equal(without.files.length, MULTI_MAX);
		} finally {
			await srv.close();
		}
	});
});
