// fs.test.mjs: toolcell-fs's tools, driven through the official MCP client.
// Every tool with valid arguments, argument and path errors, escapes from
// the allowed directory, and special files.
import assert from 'node:assert/strict';
import { chmod, mkdir, symlink as ln, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	call, entryName, entryType, fifo, file, makeTree, runAs, secretToken, startServer, symlink,
	textOf, transcript, withTimeout,
} from './lib.mjs';

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');
const HUNDRED = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(2, '0')}\n`).join('');
const BAD_UTF8 = Buffer.concat([Buffer.from('ok '), Buffer.from([0xff, 0xfe]),
    Buffer.from(' end \u00e9\n')]);

/* All text items of a result, joined by newlines. */
function allText(result) {
	return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}

/* Asserts a tool result is a success and returns its structuredContent. */
function ok(result, what) {
	assert.notEqual(result.isError, true,
	    `${what}: unexpected isError: ${JSON.stringify(result.content)}`);
	assert.equal(typeof result.structuredContent, 'object', `${what}: no structuredContent`);
	assert.ok(result.structuredContent !== null && !Array.isArray(result.structuredContent));
	textOf(result);
	return result.structuredContent;
}

/* Asserts a tool result is a tool error and returns its text. */
function err(result, what) {
	assert.equal(result.isError, true, `${what}: expected isError, got ${JSON.stringify(result)}`);
	const t = textOf(result);
	assert.ok(t.length > 0, `${what}: empty error text`);
	assert.equal(result.structuredContent, undefined, `${what}: error carries structuredContent`);
	return t;
}

describe('toolcell-fs tools (read-only root)', () => {
	let tree;
	let srv;

	before(async () => {
		const page = {};
		for (let i = 0; i < 25; i++)
			page[`page/f${String(i).padStart(2, '0')}`] = `${i}\n`;
		tree = await makeTree({
			'a.txt': 'alpha\n',
			'b.txt': 'bravo\n',
			'lines.txt': TEN,
			'hundred.txt': HUNDRED,
			'bad-utf8.txt': BAD_UTF8,
			'empty.txt': '',
			'nonl.txt': 'one\ntwo\nthree',
			'private.txt': file('private\n', 0o600),
			'sub/inner.txt': 'inner\n',
			'sub/up': symlink('../a.txt'),
			'link': symlink('a.txt'),
			'fifo': fifo(),
			...page,
		});
		srv = await startServer([tree.root]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	describe('list_allowed_directories', () => {
		test('lists the root as read-only', async () => {
			const r = await call(srv, 'list_allowed_directories', {});
			const sc = ok(r, 'list_allowed_directories');
			assert.deepEqual(sc.directories, [{ path: tree.root, access: 'read-only' }]);
			const t = textOf(r);
			assert.ok(t.includes(tree.root), t);
			assert.match(t, /read-only/);
		});
	});

	describe('read_text_file', () => {
		test('whole file', async () => {
			const r = await call(srv, 'read_text_file', { path: tree.p('lines.txt') });
			const sc = ok(r, 'whole file');
			assert.equal(sc.content, TEN);
			assert.equal(sc.path, tree.p('lines.txt'));
			assert.equal(sc.size, Buffer.byteLength(TEN));
			assert.equal(sc.start_line, 0);
			assert.equal(sc.lines, 10);
			if (sc.total_lines !== undefined)
				assert.equal(sc.total_lines, 10);
			assert.equal(sc.truncated, false);
			assert.equal(sc.next_offset, undefined);
			assert.notEqual(sc.invalid_utf8, true);
			assert.ok(textOf(r).includes(TEN), `text lacks the file: ${textOf(r)}`);
		});

		test('a relative path is taken relative to the first root', async () => {
			const sc = ok(await call(srv, 'read_text_file', { path: 'sub/inner.txt' }), 'relative');
			assert.equal(sc.content, 'inner\n');
			assert.equal(sc.path, tree.p('sub/inner.txt'));
		});

		test('symlinks that stay inside the root are followed', async () => {
			for (const p of ['link', 'sub/up']) {
				const sc = ok(await call(srv, 'read_text_file', { path: tree.p(p) }), p);
				assert.equal(sc.content, 'alpha\n', p);
			}
		});

		test('other spellings of a path inside the root are accepted', async () => {
			const parent = path.dirname(tree.root);
			const base = path.basename(tree.root);
			const spellings = [
				`${tree.root}/./a.txt`,
				`${tree.root}//a.txt`,
				`${tree.root}/sub/../a.txt`,
				`${tree.root}/sub//../a.txt`,
				'./a.txt',
				'sub/../a.txt',
				`${parent}//${base}/a.txt`,
				`${parent}/./${base}/a.txt`,
				`${tree.root}/`.replace(/\/$/, '//a.txt'),
			];
			const failures = [];
			for (const p of spellings) {
				const r = await call(srv, 'read_text_file', { path: p });
				if (r.isError === true || r.structuredContent?.content !== 'alpha\n')
					failures.push(`${p}: ${textOf(r)}`);
			}
			assert.deepEqual(failures, []);
		});

		test('a file the server may not read is a clear error', async () => {
			const r = await call(srv, 'read_text_file', { path: tree.p('private.txt') });
			if (runAs()) {
				assert.match(err(r, 'private as another user'), /permission denied/i);
			} else {
				assert.equal(ok(r, 'private as owner').content, 'private\n');
			}
		});

		test('head', async () => {
			const r = await call(srv, 'read_text_file', { path: tree.p('lines.txt'), head: 3 });
			const sc = ok(r, 'head');
			assert.equal(sc.content, 'line 1\nline 2\nline 3\n');
			assert.equal(sc.start_line, 0);
			assert.equal(sc.lines, 3);
			assert.ok(textOf(r).includes('line 3'));
			assert.ok(!textOf(r).includes('line 4'), textOf(r));
		});

		test('head larger than the file gives the whole file', async () => {
			const sc = ok(await call(srv, 'read_text_file',
			    { path: tree.p('lines.txt'), head: 1000 }), 'head 1000');
			assert.equal(sc.content, TEN);
			assert.equal(sc.lines, 10);
			assert.equal(sc.truncated, false);
		});

		test('tail', async () => {
			const r = await call(srv, 'read_text_file', { path: tree.p('lines.txt'), tail: 3 });
			const sc = ok(r, 'tail');
			assert.equal(sc.content, 'line 8\nline 9\nline 10\n');
			assert.equal(sc.start_line, 7);
			assert.equal(sc.lines, 3);
			assert.ok(!textOf(r).includes('line 7'), textOf(r));
		});

		test('tail of a file without a final newline', async () => {
			const sc = ok(await call(srv, 'read_text_file',
			    { path: tree.p('nonl.txt'), tail: 2 }), 'tail nonl');
			assert.equal(sc.content, 'two\nthree');
			assert.equal(sc.start_line, 1);
			assert.equal(sc.lines, 2);
		});

		test('offset and limit', async () => {
			const sc = ok(await call(srv, 'read_text_file',
			    { path: tree.p('lines.txt'), offset: 2, limit: 3 }), 'offset+limit');
			assert.equal(sc.content, 'line 3\nline 4\nline 5\n');
			assert.equal(sc.start_line, 2);
			assert.equal(sc.lines, 3);
			if (sc.next_offset !== undefined)
				assert.equal(sc.next_offset, 5);
		});

		test('offset past the end gives no lines', async () => {
			const sc = ok(await call(srv, 'read_text_file',
			    { path: tree.p('lines.txt'), offset: 50 }), 'offset 50');
			assert.equal(sc.content, '');
			assert.equal(sc.lines, 0);
			assert.equal(sc.start_line, 50);
			assert.equal(sc.truncated, false);
			assert.equal(sc.next_offset, undefined);
			if (sc.total_lines !== undefined)
				assert.equal(sc.total_lines, 10);
		});

		test('total_lines counts a last line without a newline', async () => {
			for (const args of [{}, { head: 1 }, { offset: 5 }, { offset: 1, limit: 1 }]) {
				const sc = ok(await call(srv, 'read_text_file',
				    { path: tree.p('nonl.txt'), ...args }), JSON.stringify(args));
				if (sc.total_lines !== undefined)
					assert.equal(sc.total_lines, 3, `total_lines with ${JSON.stringify(args)}`);
			}
		});

		test('max_bytes truncates at a line boundary and says where to continue', async () => {
			const r = await call(srv, 'read_text_file',
			    { path: tree.p('hundred.txt'), max_bytes: 50 });
			const sc = ok(r, 'max_bytes');
			assert.equal(sc.truncated, true);
			assert.ok(Buffer.byteLength(sc.content) <= 50, `${Buffer.byteLength(sc.content)} bytes`);
			assert.equal(sc.content, HUNDRED.slice(0, 48), 'six whole 8-byte lines');
			assert.equal(sc.lines, 6);
			assert.equal(sc.start_line, 0);
			assert.equal(sc.next_offset, 6);
			assert.equal(sc.size, HUNDRED.length);
			assert.equal(textOf(r), sc.content);
			assert.match(allText(r), /truncat/i, `text does not say it was truncated: ${allText(r)}`);
		});

		test('a truncated read\'s text says where to continue', async () => {
			// Clients that show only content (not structuredContent) must
			// still learn the offset to continue from.
			const r = await call(srv, 'read_text_file',
			    { path: tree.p('hundred.txt'), offset: 12, max_bytes: 50 });
			const sc = ok(r, 'offset 12');
			assert.equal(sc.start_line, 12);
			assert.equal(sc.next_offset, 18);
			const t = allText(r);
			assert.match(t, /truncat/i, t);
			assert.match(t.replace(sc.content, ''), /\b18\b/,
			    `text does not give the offset to continue from (18): ${JSON.stringify(r.content)}`);
		});

		test('continuing from next_offset gives the rest of the file', async () => {
			let got = '';
			let offset = 0;
			let calls = 0;
			for (;;) {
				assert.ok(++calls <= 40, 'paging does not end');
				const sc = ok(await call(srv, 'read_text_file',
				    { path: tree.p('hundred.txt'), offset, max_bytes: 50 }), `offset ${offset}`);
				assert.equal(sc.start_line, offset);
				got += sc.content;
				if (!sc.truncated) {
					assert.equal(sc.next_offset, undefined);
					break;
				}
				assert.equal(sc.next_offset, sc.start_line + sc.lines);
				assert.ok(sc.next_offset > offset, 'next_offset does not advance');
				offset = sc.next_offset;
			}
			assert.equal(got, HUNDRED);
			assert.ok(calls >= 17, `only ${calls} pages of at most 50 bytes for 800 bytes`);
		});

		test('invalid UTF-8 is replaced by U+FFFD', async () => {
			const r = await call(srv, 'read_text_file', { path: tree.p('bad-utf8.txt') });
			const sc = ok(r, 'bad utf8');
			assert.equal(sc.invalid_utf8, true);
			assert.ok(sc.content.startsWith('ok \uFFFD'), JSON.stringify(sc.content));
			assert.ok(sc.content.endsWith(' end \u00e9\n'), JSON.stringify(sc.content));
			// No lone surrogates: what came back was well-formed UTF-8.
			assert.ok(!/[\uD800-\uDFFF]/.test(sc.content.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '')));
			assert.equal(sc.size, BAD_UTF8.length);
			assert.ok(textOf(r).includes('\uFFFD'), textOf(r));
			assert.ok(textOf(r).includes(' end \u00e9'), textOf(r));
		});

		test('empty file', async () => {
			const r = await call(srv, 'read_text_file', { path: tree.p('empty.txt') });
			const sc = ok(r, 'empty');
			assert.equal(sc.content, '');
			assert.equal(sc.size, 0);
			assert.equal(sc.lines, 0);
			assert.equal(sc.start_line, 0);
			assert.equal(sc.truncated, false);
		});

		test('read_file is an alias of read_text_file', async () => {
			const a = ok(await call(srv, 'read_file', { path: tree.p('lines.txt'), head: 2 }), 'read_file');
			const b = ok(await call(srv, 'read_text_file', { path: tree.p('lines.txt'), head: 2 }), 'rtf');
			assert.deepEqual(a, b);
			assert.equal(a.content, 'line 1\nline 2\n');
		});
	});

	describe('list_directory', () => {
		test('entry types, name order and text lines', async () => {
			const r = await call(srv, 'list_directory', { path: tree.root });
			const sc = ok(r, 'list root');
			assert.equal(sc.path, tree.root);
			const names = sc.entries.map(entryName);
			const expected = ['a.txt', 'b.txt', 'bad-utf8.txt', 'empty.txt', 'fifo', 'hundred.txt',
			    'lines.txt', 'link', 'nonl.txt', 'page', 'private.txt', 'sub'].sort();
			assert.deepEqual(names, expected);
			const type = Object.fromEntries(sc.entries.map((e) => [entryName(e), entryType(e)]));
			// A regular file is its name alone; anything else an object.
			assert.ok(sc.entries.includes('a.txt'));
			assert.deepEqual(sc.entries.find((e) => e.name === 'sub'), { name: 'sub', type: 'directory' });
			assert.deepEqual(sc.entries.find((e) => e.name === 'fifo'), { name: 'fifo', type: 'other' });
			assert.equal(type['a.txt'], 'file');
			assert.equal(type.sub, 'directory');
			assert.equal(type.page, 'directory');
			assert.equal(type.link, 'symlink');
			assert.equal(type.fifo, 'other');
			assert.equal(sc.total, expected.length);
			assert.equal(sc.truncated, false);
			assert.equal(sc.next_offset, undefined);
			const lines = textOf(r).split('\n');
			for (const l of ['[DIR] sub', '[FILE] a.txt', '[FILE] b.txt', '[LINK] link', '[OTHER] fifo'])
				assert.ok(lines.includes(l), `no line '${l}' in:\n${textOf(r)}`);
			assert.ok(lines.indexOf('[FILE] a.txt') < lines.indexOf('[FILE] b.txt'));
			assert.ok(lines.indexOf('[FILE] b.txt') < lines.indexOf('[DIR] sub'));
			assert.ok(!textOf(r).includes('[FILE] .'), 'lists . or ..');
		});

		test('a relative path and "." name the first root', async () => {
			const a = ok(await call(srv, 'list_directory', { path: 'sub' }), 'sub');
			assert.deepEqual(a.entries.map(entryName), ['inner.txt', 'up']);
			const b = ok(await call(srv, 'list_directory', { path: '.' }), '.');
			assert.equal(b.total, 12);
		});

		test('offset and limit page through a directory', async () => {
			const first = await call(srv, 'list_directory', { path: tree.p('page'), limit: 10 });
			const sc = ok(first, 'page 1');
			assert.deepEqual(sc.entries.map(entryName),
			    Array.from({ length: 10 }, (_, i) => `f0${i}`));
			assert.equal(sc.total, 25);
			assert.equal(sc.truncated, true);
			assert.equal(sc.next_offset, 10);
			assert.match(textOf(first), /10/, 'text does not say where to continue');

			const all = [];
			let offset = 0;
			for (let pages = 0; ; pages++) {
				assert.ok(pages < 5, 'paging does not end');
				const p = ok(await call(srv, 'list_directory',
				    { path: tree.p('page'), offset, limit: 10 }), `offset ${offset}`);
				all.push(...p.entries.map(entryName));
				assert.equal(p.total, 25);
				if (!p.truncated) {
					assert.equal(p.entries.length, 5);
					assert.equal(p.next_offset, undefined);
					break;
				}
				offset = p.next_offset;
			}
			assert.deepEqual(all, Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, '0')}`));
		});
	});

	describe('get_file_info', () => {
		test('a file', async () => {
			const r = await call(srv, 'get_file_info', { path: tree.p('a.txt') });
			const sc = ok(r, 'file info');
			assert.equal(sc.path, tree.p('a.txt'));
			assert.equal(sc.type, 'file');
			assert.equal(sc.size, 6);
			assert.equal(sc.permissions, '0644');
			assert.equal(sc.uid, process.getuid());
			assert.equal(sc.links, 1);
			for (const k of ['modified', 'accessed', 'changed'])
				assert.ok(!Number.isNaN(Date.parse(sc[k])), `${k}: '${sc[k]}' is not a date`);
			const age = Math.abs(Date.now() - Date.parse(sc.modified));
			assert.ok(age < 3600_000, `modified ${sc.modified} is not recent`);
			assert.match(textOf(r), /0644/);
		});

		test('a directory', async () => {
			const sc = ok(await call(srv, 'get_file_info', { path: tree.p('sub') }), 'dir info');
			assert.equal(sc.type, 'directory');
			assert.equal(sc.permissions, '0755');
		});

		test('the root itself', async () => {
			const sc = ok(await call(srv, 'get_file_info', { path: tree.root }), 'root info');
			assert.equal(sc.type, 'directory');
			assert.equal(sc.path, tree.root);
		});

		test('a file the server cannot read still has info', async () => {
			const sc = ok(await call(srv, 'get_file_info', { path: tree.p('private.txt') }), 'private');
			assert.equal(sc.type, 'file');
			assert.equal(sc.permissions, '0600');
			assert.equal(sc.size, 8);
		});

		test('a FIFO is reported promptly, not opened for reading', async () => {
			const r = await withTimeout(call(srv, 'get_file_info', { path: tree.p('fifo') }),
			    5000, 'get_file_info on a FIFO');
			const sc = ok(r, 'fifo info');
			assert.equal(sc.type, 'fifo');
		});
	});

	describe('errors come back as tool results with isError', () => {
		const bad = [
			['read_text_file', {}, /path/, 'missing path'],
			['read_text_file', { path: 'a.txt', head: '3' }, /head/, 'head as a string'],
			['read_text_file', { path: 'a.txt', head: 1.5 }, /head/, 'head not an integer'],
			['read_text_file', { path: 'a.txt', head: 0 }, /head/, 'head below its minimum'],
			['read_text_file', { path: 'a.txt', bogus: 1 }, /bogus/, 'unknown argument'],
			['read_text_file', { path: 'a.txt', head: 2, tail: 2 }, /head|tail/, 'head and tail'],
			['read_text_file', { path: 7 }, /path/, 'path a number'],
			['read_text_file', { path: '' }, /path|empty/i, 'empty path'],
			['read_text_file', { path: 'a.txt', max_bytes: 0 }, /max_bytes/, 'max_bytes 0'],
			['list_directory', { path: '.', limit: 0 }, /limit/, 'limit 0'],
			['list_directory', { path: '.', offset: -1 }, /offset/, 'offset -1'],
			['list_directory', {}, /path/, 'list without path'],
			['get_file_info', { path: ['a.txt'] }, /path/, 'path an array'],
			['list_allowed_directories', { path: '/' }, /path/, 'argument to a no-argument tool'],
		];
		for (const [tool, args, re, what] of bad) {
			test(`${tool}: ${what}`, async () => {
				const t = err(await call(srv, tool, args), what);
				assert.match(t, re, `error text does not name the problem: ${t}`);
			});
		}

		test('not found', async () => {
			for (const tool of ['read_text_file', 'list_directory', 'get_file_info']) {
				const t = err(await call(srv, tool, { path: tree.p('nope.txt') }), tool);
				assert.match(t, /not found|no such/i, t);
			}
		});

		test('reading a directory', async () => {
			err(await call(srv, 'read_text_file', { path: tree.p('sub') }), 'read a dir');
		});

		test('listing a file', async () => {
			const t = err(await call(srv, 'list_directory', { path: tree.p('a.txt') }), 'list a file');
			assert.match(t, /: not a directory$/, t);
		});

		test('outside the allowed directories', async () => {
			for (const tool of ['read_text_file', 'list_directory', 'get_file_info']) {
				const t = err(await call(srv, tool, { path: '/etc/passwd' }), tool);
				assert.match(t, /outside/i, t);
				assert.ok(!t.includes('root:'), t);
			}
		});

		test('the server keeps serving after errors', async () => {
			const sc = ok(await call(srv, 'read_text_file', { path: tree.p('a.txt') }), 'after errors');
			assert.equal(sc.content, 'alpha\n');
		});
	});

	describe('special files', () => {
		test('reading a FIFO fails promptly instead of hanging', async () => {
			const r = await withTimeout(call(srv, 'read_text_file', { path: tree.p('fifo') }),
			    5000, 'read_text_file on a FIFO');
			err(r, 'fifo read');
		});

		test('listing a FIFO fails promptly', async () => {
			const r = await withTimeout(call(srv, 'list_directory', { path: tree.p('fifo') }),
			    5000, 'list_directory on a FIFO');
			err(r, 'fifo list');
		});

		test('device files are outside the roots', async () => {
			for (const p of ['/dev/zero', '/dev/null', '/dev/stdin', '/proc/self/environ'])
				assert.match(err(await withTimeout(call(srv, 'read_text_file', { path: p }),
				    5000, p), p), /outside/i);
		});
	});
});

describe('a root given through a symlink', () => {
	let tree;
	let srv;

	before(async () => {
		tree = await makeTree({ 'real/a.txt': 'alpha\n', 'real-evil/secret': 'nope\n', 'alias': symlink('real') });
		srv = await startServer([tree.p('alias')]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	test('is listed by its canonical path', async () => {
		const sc = ok(await call(srv, 'list_allowed_directories', {}), 'list');
		assert.deepEqual(sc.directories, [{ path: tree.p('real'), access: 'read-only' }]);
	});

	test('is reachable under both names', async () => {
		for (const p of [tree.p('real/a.txt'), tree.p('alias/a.txt')]) {
			const sc = ok(await call(srv, 'read_text_file', { path: p }), p);
			assert.equal(sc.content, 'alpha\n');
		}
	});

	test('its twin is refused under both names', async () => {
		for (const p of [tree.p('real-evil/secret'), `${tree.p('alias')}/../real-evil/secret`,
		    `${tree.p('real')}/../real-evil/secret`, `${tree.p('alias')}-evil/secret`])
			err(await call(srv, 'read_text_file', { path: p }), p);
	});
});

describe('toolcell-fs confinement (EscapeRoute)', () => {
	let base;
	let root;
	let evil;
	let secret;
	let srv;

	before(async () => {
		secret = secretToken();
		base = await makeTree({ 'allowed/.keep': '' });
		root = base.p('allowed');
		evil = base.p('allowed-evil');
		const b = base.root;
		await mkdir(evil);
		await chmod(evil, 0o755);
		await writeFile(`${evil}/secret`, `${secret}\n`);
		await chmod(`${evil}/secret`, 0o644);
		await writeFile(`${root}/ok.txt`, 'ok\n');
		await chmod(`${root}/ok.txt`, 0o644);
		await mkdir(`${root}/sub`);
		await chmod(`${root}/sub`, 0o755);
		await ln(`${evil}/secret`, `${root}/abs-file`);
		await ln('../allowed-evil/secret', `${root}/rel-file`);
		await ln(evil, `${root}/abs-dir`);
		await ln('../allowed-evil', `${root}/rel-dir`);
		await ln('../../allowed-evil/secret', `${root}/sub/deep-rel-file`);
		await ln(`${root}/ok.txt`, `${root}/abs-inside`);
		await ln('../nowhere/missing', `${root}/dangling-rel`);
		await ln('missing', `${root}/dangling-in`);
		await ln(`${b}/nowhere/missing`, `${root}/dangling-abs`);
		await ln(`/proc/self/root${evil}/secret`, `${root}/proc-link`);
		await ln('/proc/self/cwd', `${root}/proc-cwd`);
		await ln('/', `${root}/slash`);
		await ln('/dev/zero', `${root}/devzero`);
		await ln('..', `${root}/dotdot`);
		srv = await startServer([root]);
	});

	after(async () => {
		await srv?.close();
		await base?.cleanup();
	});

	/* Paths that must be refused by every tool. */
	const escapes = () => [
		// prefix twin
		`${evil}/secret`,
		evil,
		`${root}/../allowed-evil/secret`,
		`${root}/../allowed-evil`,
		`${root}-evil/secret`,
		// symlinks inside the root that point outside
		`${root}/abs-file`,
		`${root}/rel-file`,
		`${root}/sub/deep-rel-file`,
		`${root}/abs-dir`,
		`${root}/rel-dir`,
		`${root}/abs-dir/secret`,
		`${root}/rel-dir/secret`,
		'rel-dir/secret',
		'abs-dir/secret',
		`${root}/slash/etc/passwd`,
		`${root}/dotdot/allowed-evil/secret`,
		`${root}/devzero`,
		// dangling symlinks
		`${root}/dangling-rel`,
		`${root}/dangling-abs`,
		`${root}/dangling-in`,
		// NUL bytes
		`ok.txt\u0000/../../allowed-evil/secret`,
		`${root}/ok.txt\u0000`,
		// .. traversal
		'../allowed-evil/secret',
		'..',
		`${root}/..`,
		`${root}/sub/../../allowed-evil/secret`,
		'sub/../../allowed-evil/secret',
		'../../etc/passwd',
		`${root}/../../etc/passwd`,
		`${root}/../../../../../../../../etc/passwd`,
		// /proc magic links
		`/proc/self/root${evil}/secret`,
		`/proc/self/root${root}/ok.txt`,
		`/proc/self/root${root}/../allowed-evil/secret`,
		`/proc/self/cwd`,
		`${root}/proc-link`,
		`${root}/proc-cwd`,
		`${root}/proc-cwd/etc/passwd`,
		'/etc/passwd',
	];

	for (const tool of ['read_text_file', 'list_directory', 'get_file_info']) {
		test(`${tool} refuses every escape`, async () => {
			const failures = [];
			for (const p of escapes()) {
				const r = await call(srv, tool, { path: p });
				const t = textOf(r);
				if (r.isError !== true)
					failures.push(`${p}: not an error: ${JSON.stringify(r.structuredContent ?? t).slice(0, 300)}`);
				if (t.includes(secret) || JSON.stringify(r).includes(secret))
					failures.push(`${p}: the secret leaked`);
				if (/root:x?:?0:0:/.test(t))
					failures.push(`${p}: /etc/passwd leaked`);
			}
			assert.deepEqual(failures, []);
		});
	}

	test('symlinks inside the root that stay inside still work (control)', async () => {
		const r = await call(srv, 'read_text_file', { path: `${root}/abs-inside` });
		// An absolute link is refused even when it points inside the root,
		// since it is resolved beneath the root; either way no escape.
		if (r.isError !== true)
			assert.equal(r.structuredContent.content, 'ok\n');
		const ctl = await call(srv, 'read_text_file', { path: `${root}/ok.txt` });
		assert.notEqual(ctl.isError, true, textOf(ctl));
		assert.equal(ctl.structuredContent.content, 'ok\n');
	});

	test('the secret never appears anywhere the server wrote', () => {
		assert.ok(srv.messages.length > 100, `only ${srv.messages.length} messages seen`);
		assert.ok(!transcript(srv).includes(secret), 'secret in a response');
		assert.ok(!srv.stderr().includes(secret), 'secret on stderr');
	});
});

describe('a large read carries its body in both halves, a page at a time', () => {
	// Hosts pass on one half of a result: Claude Desktop the text, Claude
	// Code and Codex structuredContent.  Each must hold the body, and the
	// whole message must stay under the 10 MiB the official client takes.
	const MIB = 2 ** 20;
	const PAGE = 4 * MIB;
	let tree, srv;
	const line = `${'x'.repeat(99)}\n`;
	const big = line.repeat(15 * 1024);	// 1.5 MiB

	before(async () => {
		tree = await makeTree({
			'big.txt': big,
			'small.txt': line,
			'huge.txt': line.repeat(60 * 1024),		// 6 MiB (less 0.14)
			'quotes.txt': `${'"'.repeat(63)}\n`.repeat(64 * 1024),	// 4 MiB, twice that escaped
			'controls.txt': `${'\x01'.repeat(63)}\n`.repeat(64 * 1024),	// 4 MiB, 6x escaped
			'oneline.txt': '\x01'.repeat(PAGE),
		});
		srv = await startServer([tree.root]);
	});
	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	/* The bytes of the raw response to the last call. */
	const lastSize = () => Buffer.byteLength(JSON.stringify(srv.messages[srv.messages.length - 1]));

	test('over 1 MiB: in both, whole', async () => {
		const r = await call(srv, 'read_text_file', { path: 'big.txt', max_bytes: 2 * MIB });
		assert.equal(r.content[0].text, big);
		assert.equal(r.structuredContent.content, big);
		assert.equal(r.structuredContent.content_in_text, undefined);
		assert.equal(r.structuredContent.lines, 15 * 1024);
		assert.equal(r.structuredContent.truncated, false);
	});

	test('up to 1 MiB: in both, as ever', async () => {
		const r = await call(srv, 'read_text_file', { path: 'big.txt', max_bytes: MIB });
		assert.equal(r.structuredContent.content, r.content[0].text);
		assert.equal(r.structuredContent.truncated, true);
		const s = await call(srv, 'read_text_file', { path: 'small.txt' });
		assert.equal(s.structuredContent.content, line);
	});

	test('past 4 MiB: a page of whole lines, in both, and where to continue', async () => {
		const r = await call(srv, 'read_text_file', { path: 'huge.txt', max_bytes: 32 * MIB });
		const lines = Math.floor(PAGE / line.length);
		assert.equal(r.structuredContent.content, line.repeat(lines));
		assert.equal(r.structuredContent.lines, lines);
		assert.equal(r.structuredContent.truncated, true);
		assert.equal(r.structuredContent.next_offset, lines);
		assert.equal(r.content[0].text, line.repeat(lines));
		assert.equal(r.content[1].text, `[truncated at ${PAGE} bytes, the most one call returns: `
		    + `${lines} lines returned; call read_text_file again with offset=${lines} to continue]`);
		assert.ok(lastSize() < 10 * MIB, `${lastSize()} bytes`);
		// The next page ends the file.
		const n = await call(srv, 'read_text_file',
		    { path: 'huge.txt', offset: lines, max_bytes: 32 * MIB });
		assert.equal(n.structuredContent.content, line.repeat(60 * 1024 - lines));
		assert.equal(n.structuredContent.truncated, false);
		assert.equal(n.structuredContent.next_offset, undefined);
	});

	test('the tail past 4 MiB: the last page, and how to read the lines before', async () => {
		const r = await call(srv, 'read_text_file', { path: 'huge.txt', tail: 60 * 1024, max_bytes: 32 * MIB });
		const lines = Math.floor(PAGE / line.length);
		assert.equal(r.structuredContent.content, line.repeat(lines));
		assert.equal(r.structuredContent.start_line, 60 * 1024 - lines);
		assert.equal(r.content[1].text, `[truncated at ${PAGE} bytes, the most one call returns: `
		    + `${lines} lines returned; read the lines before them with offset and limit]`);
	});

	test('text that escapes to more than a page is cut shorter, and still fits', async () => {
		for (const [f, unit] of [['quotes.txt', `${'"'.repeat(63)}\n`], ['controls.txt', `${'\x01'.repeat(63)}\n`]]) {
			const r = await call(srv, 'read_text_file', { path: f, max_bytes: PAGE });
			const sc = r.structuredContent;
			assert.equal(sc.truncated, true, f);
			assert.ok(sc.lines > 0 && sc.lines < 64 * 1024, `${f}: ${sc.lines} lines`);
			assert.equal(sc.content, unit.repeat(sc.lines), f);
			assert.equal(r.content[0].text, sc.content, f);
			assert.equal(sc.next_offset, sc.lines, f);
			assert.match(r.content[1].text, new RegExp(`^\\[truncated at \\d+ bytes, the most one call `
			    + `returns: ${sc.lines} lines returned; call read_text_file again with `
			    + `offset=${sc.lines} to continue\\]$`), f);
			assert.ok(lastSize() < 10 * MIB, `${f}: ${lastSize()} bytes`);
			// Not much less than fits: over half of the 4.5 MiB.
			assert.ok(JSON.stringify(sc.content).length > 2.25 * MIB, `${f}: ${JSON.stringify(sc.content).length}`);
		}
		// One line of controls: cut inside it, and it still fits.
		const o = await call(srv, 'read_text_file', { path: 'oneline.txt', max_bytes: PAGE });
		assert.equal(o.structuredContent.truncated, true);
		assert.match(o.content[1].text, /a line longer than the cap was cut/);
		assert.ok(lastSize() < 10 * MIB, `${lastSize()} bytes`);
	});

	test('max_bytes under a page that escapes to more is cut by the page, and says so', async () => {
		const r = await call(srv, 'read_text_file', { path: 'controls.txt', max_bytes: 2 * MIB });
		assert.equal(r.structuredContent.truncated, true);
		assert.match(r.content[1].text, /^\[truncated at \d+ bytes, the most one call returns: /);
		const s = await call(srv, 'read_text_file', { path: 'quotes.txt', max_bytes: MIB });
		assert.match(s.content[1].text, /^\[truncated at max_bytes=1048576: 16384 lines returned; /);
	});
});
