// fs-walk.test.mjs: toolcell-fs's walking tools (directory_tree,
// search_files, search_file_contents), driven through the official MCP
// client: shapes, every option, bounds, symlinks, deny rules, special files
// and escapes.
import assert from 'node:assert/strict';
import { mkdir, symlink as ln, writeFile, chmod, rm } from 'node:fs/promises';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	call, dir, entryName, fifo, makeTree, secretToken, startServer, symlink, textOf,
	transcript, withTimeout,
} from './lib.mjs';

/* Asserts a tool result is a success and returns its structuredContent. */
function ok(result, what) {
	assert.notEqual(result.isError, true,
	    `${what}: unexpected isError: ${JSON.stringify(result.content)}`);
	assert.equal(typeof result.structuredContent, 'object', `${what}: no structuredContent`);
	textOf(result);
	return result.structuredContent;
}

/* Asserts a tool result is a tool error and returns its text. */
function err(result, what) {
	assert.equal(result.isError, true, `${what}: expected isError, got ${JSON.stringify(result)}`);
	assert.equal(result.structuredContent, undefined, `${what}: error carries structuredContent`);
	return textOf(result);
}

/* The second text block (the note), or undefined. */
function note(result) {
	return result.content[1]?.text;
}

/* |s| with control characters shown as the server shows them: \uXXXX. */
function escaped(s) {
	return s.replace(/[\x00-\x1f\x7f-\x9f]/g,
	    (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/* The outline directory_tree's text should be for structured |nodes|:
 * two spaces a level, a '/' after directories, a bracketed line under an
 * incomplete one. */
function outline(nodes, depth = 0) {
	const pad = '  '.repeat(depth);
	let out = '';
	for (const n of nodes) {
		out += `${pad}${escaped(entryName(n))}${n.type === 'directory' ? '/' : ''}\n`;
		if (n.children)
			out += outline(n.children, depth + 1);
		if (n.truncated)
			out += `${pad}  ${n.error ? `[cannot be read: ${n.error}]`
			    : n.children ? '[more entries not shown]' : '[not opened: maxDepth]'}\n`;
	}
	return out;
}

/* Names of a tree, as nested [name, children?] for compact comparisons. */
function shape(nodes) {
	return nodes.map((n) => (n.children ? [n.name, shape(n.children)] : entryName(n)));
}

/* Every name anywhere in a tree. */
function allNames(nodes, out = []) {
	for (const n of nodes) {
		out.push(entryName(n));
		if (n.children)
			allNames(n.children, out);
	}
	return out;
}

async function writePolicy(lines) {
	const d = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-walkpol-'));
	await chmod(d, 0o755);
	const p = path.join(d, 'walk.policy');
	await writeFile(p, lines.join('\n') + '\n');
	await chmod(p, 0o644);
	return p;
}

const TOOLS = ['directory_tree', 'search_files', 'search_file_contents'];

describe('walking tools', () => {
	let tree;
	let outside;
	let srv;
	let secret;
	let policyFile;

	before(async () => {
		secret = secretToken();
		outside = await makeTree({ 'outside-secret.txt': `${secret}\n`, 'odir/deep.txt': `${secret}\n` });
		tree = await makeTree({
			'README.md': 'hello readme\n',
			'a.ts': 'const a = 1; // needle\n',
			'src/b.ts': 'export const b = "Needle";\n',
			'src/c.c': 'int main(void) { return 0; } /* needle */\n',
			'src/gen/d.ts': 'generated needle\n',
			'src/deep/er/e.ts': 'deep\n',
			'node_modules/x/index.js': 'needle in modules\n',
			'logs/app.log': 'needle log\n',
			'top.log': 'log\n',
			'empty': dir(),
			'.env': `${secret}\n`,
			'.env.local': `${secret}\n`,
			'sub/.env': `${secret}\n`,
			'.ssh/id_rsa': `${secret}\n`,
			'key.pem': `${secret}\n`,
			'private/p.txt': `${secret}\n`,
			'sub/private/q.txt': `${secret}\n`,
			'sub/ok.txt': 'ok needle\n',
			'fifo': fifo(),
			'sub/fifo2': fifo(),
			'out-link': symlink(outside.root),
			'out-file': symlink(outside.p('outside-secret.txt')),
			'loop': symlink('loop'),
			'loop2/back': symlink('..'),
			'env-link': symlink('.env'),
			'ctx.txt': 'l1\nl2\nl3 needle\nl4\nl5\nl6\nl7\nl8 needle\nl9 needle\nl10\n',
		});
		policyFile = await writePolicy([
			'# walking tools',
			`allow read ${tree.root}`,
			'deny **/private',
		]);
		srv = await startServer(['--policy', policyFile]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
		await outside?.cleanup();
		if (policyFile)
			await rm(path.dirname(policyFile), { recursive: true, force: true });
	});

	describe('tools/list', () => {
		test('the three tools are listed read-only with an outputSchema', async () => {
			const { tools } = await srv.client.listTools();
			for (const name of TOOLS) {
				const t = tools.find((x) => x.name === name);
				assert.ok(t, name);
				assert.equal(t.annotations.readOnlyHint, true, name);
				assert.equal(t.annotations.idempotentHint, true, name);
				assert.equal(t.annotations.openWorldHint, false, name);
				assert.equal(t.outputSchema.type, 'object', name);
				assert.equal(t.inputSchema.properties.path.type, 'string', name);
				assert.deepEqual(t.inputSchema.required.includes('path'), true, name);
			}
			const tree = tools.find((x) => x.name === 'directory_tree');
			assert.deepEqual(Object.keys(tree.inputSchema.properties).sort(),
			    ['excludePatterns', 'maxDepth', 'maxEntries', 'path']);
			assert.equal(tree.inputSchema.properties.maxEntries.maximum, 10000);
			assert.equal(tree.inputSchema.properties.maxDepth.maximum, 64);
			const sf = tools.find((x) => x.name === 'search_files');
			assert.deepEqual(sf.inputSchema.required.sort(), ['path', 'pattern']);
			const sc = tools.find((x) => x.name === 'search_file_contents');
			assert.deepEqual(sc.inputSchema.required.sort(), ['path', 'pattern']);
			assert.equal(sc.inputSchema.properties.contextLines.maximum, 10);
		});
	});

	describe('directory_tree', () => {
		test('the whole tree in name order, denied entries left out, symlinks not followed', async () => {
			const r = await call(srv, 'directory_tree', { path: '.' });
			const sc = ok(r, 'tree');
			assert.equal(sc.path, tree.root);
			assert.deepEqual(shape(sc.tree), [
				'README.md',
				'a.ts',
				'ctx.txt',
				['empty', []],
				'env-link',
				'fifo',
				['logs', ['app.log']],
				'loop',
				['loop2', ['back']],
				['node_modules', [['x', ['index.js']]]],
				'out-file',
				'out-link',
				['src', ['b.ts', 'c.c', ['deep', [['er', ['e.ts']]]], ['gen', ['d.ts']]]],
				['sub', ['fifo2', 'ok.txt']],
				'top.log',
			]);
			const byName = Object.fromEntries(sc.tree.map((n) => [entryName(n), n]));
			// A regular file is its name alone; anything else an object.
			assert.equal(byName['a.ts'], 'a.ts');
			assert.equal(byName['README.md'], 'README.md');
			assert.deepEqual(byName.empty, { name: 'empty', type: 'directory', children: [] });
			assert.deepEqual(byName.fifo, { name: 'fifo', type: 'other' });
			assert.deepEqual(byName['out-link'], { name: 'out-link', type: 'symlink' });
			assert.deepEqual(byName.loop, { name: 'loop', type: 'symlink' });
			assert.deepEqual(byName.loop2, { name: 'loop2', type: 'directory',
			    children: [{ name: 'back', type: 'symlink' }] });
			assert.equal(sc.entries, 28);
			assert.equal(sc.truncated, false);
			assert.equal(sc.truncated_by, undefined);
			// The text is an outline of the same tree.
			assert.equal(textOf(r), outline(sc.tree));
			assert.match(textOf(r), /^README\.md\na\.ts\nctx\.txt\nempty\/\nenv-link\n/);
			assert.match(textOf(r), /\nsrc\/\n  b\.ts\n  c\.c\n  deep\/\n    er\/\n      e\.ts\n/);
			assert.equal(r.content.length, 1);
			const names = allNames(sc.tree);
			for (const bad of ['.env', '.env.local', '.ssh', 'id_rsa', 'key.pem', 'private',
			    'p.txt', 'q.txt', 'outside-secret.txt', 'odir', 'deep.txt'])
				assert.ok(!names.includes(bad), bad);
			assert.ok(!transcript(srv).includes(secret));
		});

		test('a subdirectory, by relative and absolute path', async () => {
			for (const p of ['src', tree.p('src'), './src/', `${tree.p('src')}/.`]) {
				const sc = ok(await call(srv, 'directory_tree', { path: p }), p);
				assert.equal(sc.path, tree.p('src'), p);
				assert.deepEqual(shape(sc.tree), ['b.ts', 'c.c', ['deep', [['er', ['e.ts']]]], ['gen', ['d.ts']]], p);
			}
		});

		test('excludePatterns: names at any depth, paths, globs', async () => {
			const sc = ok(await call(srv, 'directory_tree', { path: '.',
			    excludePatterns: ['node_modules', '*.log', 'src/gen/', 'deep', 'loop*', 'out-*', 'env-link'] }), 'exclude');
			assert.deepEqual(shape(sc.tree), [
				'README.md', 'a.ts', 'ctx.txt', ['empty', []], 'fifo', ['logs', []],
				['src', ['b.ts', 'c.c']], ['sub', ['fifo2', 'ok.txt']],
			]);
			const sc2 = ok(await call(srv, 'directory_tree', { path: '.',
			    excludePatterns: ['**/*.ts', '/README.md', 'src/deep/**'] }), 'exclude2');
			const names = allNames(sc2.tree);
			assert.ok(!names.includes('a.ts') && !names.includes('b.ts') && !names.includes('d.ts'));
			assert.ok(!names.includes('README.md'));
			assert.ok(!names.includes('deep'), 'src/deep/** covers src/deep too');
			assert.ok(names.includes('c.c'));
			// An anchored name is only excluded at the top.
			const sc3 = ok(await call(srv, 'directory_tree', { path: '.',
			    excludePatterns: ['/ok.txt', '/x'] }), 'anchored');
			assert.ok(allNames(sc3.tree).includes('ok.txt'));
			assert.ok(allNames(sc3.tree).includes('x'));
		});

		test('a bad exclude pattern is a clear error', async () => {
			const t = err(await call(srv, 'directory_tree', { path: '.', excludePatterns: ['a**b'] }), 'bad');
			assert.match(t, /^excludePatterns: 'a\*\*b': /);
		});

		test('maxDepth: directories at the last level are not opened', async () => {
			const r = await call(srv, 'directory_tree', { path: '.', maxDepth: 1 });
			const sc = ok(r, 'depth1');
			assert.equal(sc.entries, 15);
			assert.equal(sc.truncated, true);
			assert.deepEqual(sc.truncated_by, ['maxDepth']);
			const src = sc.tree.find((n) => n.name === 'src');
			assert.deepEqual(src, { name: 'src', type: 'directory', truncated: true });
			assert.match(textOf(r), /\nsrc\/\n  \[not opened: maxDepth\]\nsub\/\n/);
			assert.equal(textOf(r), outline(sc.tree));
			assert.match(note(r), /6 directories at maxDepth=1 not opened/);
			const sc2 = ok(await call(srv, 'directory_tree', { path: 'src', maxDepth: 2 }), 'depth2');
			assert.deepEqual(sc2.tree.find((n) => n.name === 'deep'),
			    { name: 'deep', type: 'directory', children: [{ name: 'er', type: 'directory', truncated: true }] });
			const sc3 = ok(await call(srv, 'directory_tree', { path: 'src', maxDepth: 3 }), 'depth3');
			assert.equal(sc3.truncated, false);
		});

		test('maxEntries: cut with truncated, the open directories marked', async () => {
			const r = await call(srv, 'directory_tree', { path: '.', maxEntries: 8 });
			const sc = ok(r, 'cap');
			assert.equal(sc.entries, 8);
			assert.equal(sc.truncated, true);
			assert.deepEqual(sc.truncated_by, ['maxEntries']);
			assert.deepEqual(shape(sc.tree), ['README.md', 'a.ts', 'ctx.txt', ['empty', []], 'env-link',
			    'fifo', ['logs', ['app.log']]]);
			assert.equal(textOf(r), outline(sc.tree));
			assert.match(note(r), /^\[tree truncated: 8 entries shown; maxEntries=8 reached/);
			// Cut inside a subdirectory: it is marked.
			const sc2 = ok(await call(srv, 'directory_tree', { path: 'src', maxEntries: 4 }), 'cap2');
			// "truncated" marks the directory whose own children are not
			// all shown: er (e.ts was cut), not deep (er is its only entry).
			assert.deepEqual(shape(sc2.tree), ['b.ts', 'c.c', ['deep', [['er', []]]]]);
			assert.deepEqual(sc2.tree.find((n) => n.name === 'deep'), { name: 'deep', type: 'directory',
			    children: [{ name: 'er', type: 'directory', children: [], truncated: true }] });
			assert.equal(textOf(await call(srv, 'directory_tree', { path: 'src', maxEntries: 4 })),
			    'b.ts\nc.c\ndeep/\n  er/\n    [more entries not shown]\n');
			assert.equal(sc2.truncated, true);
			// Exactly as many entries as the cap: not truncated.
			const sc3 = ok(await call(srv, 'directory_tree', { path: 'src', maxEntries: 7 }), 'exact');
			assert.equal(sc3.entries, 7);
			assert.equal(sc3.truncated, false);
		});

		test('argument bounds are checked', async () => {
			for (const args of [{ maxDepth: 0 }, { maxDepth: 65 }, { maxEntries: 0 }, { maxEntries: 10001 }]) {
				const r = await call(srv, 'directory_tree', { path: '.', ...args }).catch((e) => e);
				assert.ok(r instanceof Error ? /maxDepth|maxEntries/.test(r.message) : r.isError === true,
				    JSON.stringify(args));
			}
		});

		test('a file, a denied directory, a missing one are refused', async () => {
			assert.equal(err(await call(srv, 'directory_tree', { path: 'a.ts' }), 'file'), "'a.ts': not a directory");
			assert.match(err(await call(srv, 'directory_tree', { path: '.ssh' }), 'ssh'), /denied by policy rule 'deny \*\*\/\.ssh'/);
			assert.match(err(await call(srv, 'directory_tree', { path: 'sub/private' }), 'priv'),
			    /denied by policy rule 'deny \*\*\/private' \(line 3\)/);
			assert.match(err(await call(srv, 'directory_tree', { path: 'nope' }), 'missing'), /not found/);
			// A symlink to a directory outside is refused, not followed.
			assert.match(err(await call(srv, 'directory_tree', { path: 'out-link' }), 'out'), /outside|not found|denied|symlink/);
			assert.ok(!transcript(srv).includes(secret));
		});
	});

	describe('search_files', () => {
		const names = (sc) => sc.matches.map((m) => path.relative(tree.root, m));

		test('a bare glob matches names at any depth; full paths one per line', async () => {
			const r = await call(srv, 'search_files', { path: '.', pattern: '*.ts' });
			const sc = ok(r, 'ts');
			assert.deepEqual(names(sc), ['a.ts', 'src/b.ts', 'src/deep/er/e.ts', 'src/gen/d.ts']);
			assert.equal(sc.truncated, false);
			assert.equal(sc.next_offset, undefined);
			assert.equal(textOf(r), sc.matches.join('\n') + '\n');
			assert.equal(sc.matches[0], tree.p('a.ts'));
		});

		test('anchored, slashed and ** patterns', async () => {
			const cases = [
				['/*.ts', ['a.ts']],
				['src/*.ts', ['src/b.ts']],
				['src/**/*.ts', ['src/b.ts', 'src/deep/er/e.ts', 'src/gen/d.ts']],
				['**/*.ts', ['a.ts', 'src/b.ts', 'src/deep/er/e.ts', 'src/gen/d.ts']],
				['src/**', ['src', 'src/b.ts', 'src/c.c', 'src/deep', 'src/deep/er', 'src/deep/er/e.ts', 'src/gen', 'src/gen/d.ts']],
				['deep', ['src/deep']],
				['e?.ts', []],
				['[ab].ts', ['a.ts', 'src/b.ts']],
				['*.log', ['logs/app.log', 'top.log']],
				['src', ['src']],
				['loop*', ['loop', 'loop2']],
				['back', ['loop2/back']],
			];
			for (const [pattern, want] of cases) {
				const sc = ok(await call(srv, 'search_files', { path: '.', pattern }), pattern);
				assert.deepEqual(names(sc), want, pattern);
			}
		});

		test('excludePatterns prune whole directories', async () => {
			const sc = ok(await call(srv, 'search_files', { path: '.', pattern: '*',
			    excludePatterns: ['src', 'node_modules', '*.log', 'loop*', 'out-*', 'env-link', 'fifo*', 'sub', 'empty', 'logs'] }), 'ex');
			assert.deepEqual(names(sc), ['README.md', 'a.ts', 'ctx.txt']);
		});

		test('denied entries are never named, whatever the pattern', async () => {
			for (const pattern of ['*', '**', '.env', '.env*', '*.pem', 'id_rsa', '.ssh', 'private', 'p.txt', 'q.txt', '*secret*', 'deep.txt']) {
				const sc = ok(await call(srv, 'search_files', { path: '.', pattern }), pattern);
				for (const m of sc.matches) {
					assert.ok(!/\.env$|\.env\.local|\.ssh|id_rsa|\.pem|private|outside-secret|odir/.test(m), `${pattern}: ${m}`);
				}
			}
			const all = ok(await call(srv, 'search_files', { path: '.', pattern: '**' }), 'all');
			assert.equal(all.matches.length, 28);
			assert.ok(names(all).includes('env-link'), 'the link is named by its own allowed name');
			assert.ok(!transcript(srv).includes(secret));
		});

		test('paging with maxResults and offset', async () => {
			const r1 = await call(srv, 'search_files', { path: '.', pattern: '*.ts', maxResults: 3 });
			const p1 = ok(r1, 'p1');
			assert.deepEqual(names(p1), ['a.ts', 'src/b.ts', 'src/deep/er/e.ts']);
			assert.equal(p1.truncated, true);
			assert.deepEqual(p1.truncated_by, ['maxResults']);
			assert.equal(p1.next_offset, 3);
			assert.match(note(r1), /offset=3 to continue/);
			const p2 = ok(await call(srv, 'search_files', { path: '.', pattern: '*.ts', maxResults: 3, offset: 3 }), 'p2');
			assert.deepEqual(names(p2), ['src/gen/d.ts']);
			assert.equal(p2.truncated, false);
			assert.equal(p2.next_offset, undefined);
			// Exactly maxResults matches: not truncated.
			const p3 = ok(await call(srv, 'search_files', { path: '.', pattern: '*.ts', maxResults: 4 }), 'p3');
			assert.equal(p3.truncated, false);
			const p4 = ok(await call(srv, 'search_files', { path: '.', pattern: '*.ts', offset: 99 }), 'p4');
			assert.deepEqual(p4.matches, []);
		});

		test('maxDepth limits the levels searched', async () => {
			const sc = ok(await call(srv, 'search_files', { path: '.', pattern: '*.ts', maxDepth: 2 }), 'd2');
			assert.deepEqual(names(sc), ['a.ts', 'src/b.ts']);
			assert.equal(sc.truncated, true);
			assert.ok(sc.truncated_by.includes('maxDepth'));
		});

		test('no match, bad patterns', async () => {
			const r = await call(srv, 'search_files', { path: '.', pattern: '*.nothing' });
			assert.deepEqual(ok(r, 'none').matches, []);
			assert.equal(textOf(r), 'No matches found\n');
			assert.match(err(await call(srv, 'search_files', { path: '.', pattern: 'a**' }), 'bad'), /^pattern 'a\*\*': /);
			assert.match(err(await call(srv, 'search_files', { path: '.', pattern: '[z-a]' }), 'bad'), /^pattern '\[z-a\]': /);
			assert.match(err(await call(srv, 'search_files', { path: '.', pattern: '/' }), 'bad'), /^pattern '\/': empty pattern/);
		});
	});

	describe('search_file_contents', () => {
		const rel = (sc) => sc.matches.map((m) => `${path.relative(tree.root, m.file)}:${m.line}`);

		test('literal, case-sensitive by default, grep-like text', async () => {
			const r = await call(srv, 'search_file_contents', { path: '.', pattern: 'needle' });
			const sc = ok(r, 'lit');
			assert.deepEqual(rel(sc), ['a.ts:1', 'ctx.txt:3', 'ctx.txt:8', 'ctx.txt:9', 'logs/app.log:1',
			    'node_modules/x/index.js:1', 'src/c.c:1', 'src/gen/d.ts:1', 'sub/ok.txt:1']);
			assert.deepEqual(sc.matches[0], { file: tree.p('a.ts'), line: 1, column: 17, text: 'const a = 1; // needle' });
			assert.equal(sc.truncated, false);
			assert.equal(sc.files_matched, 7);
			assert.equal(sc.files_skipped.symlinks, 5);
			assert.equal(sc.files_skipped.special, 2, 'two FIFOs, never opened');
			assert.equal(sc.files_skipped.binary, 0);
			assert.equal(sc.files_scanned, 11);
			const lines = textOf(r).split('\n');
			assert.equal(lines[0], `${tree.p('a.ts')}:1:const a = 1; // needle`);
			assert.equal(lines[1], `${tree.p('ctx.txt')}:3:l3 needle`);
			assert.equal(lines.length, 10);
			assert.match(note(r), /^\[9 matches in 7 files; 11 files searched; skipped: 0 binary/);
			assert.ok(!transcript(srv).includes(secret));
		});

		test('ignoreCase, regex, include, excludePatterns', async () => {
			let sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'NEEDLE', ignoreCase: true, include: '*.ts' }), 'icase');
			assert.deepEqual(rel(sc), ['a.ts:1', 'src/b.ts:1', 'src/gen/d.ts:1']);
			assert.equal(sc.matches[1].text, 'export const b = "Needle";');
			sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'Needle', include: '*.ts' }), 'case');
			assert.deepEqual(rel(sc), ['src/b.ts:1']);
			sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: '^l[0-9]+ needle$', regex: true }), 'regex');
			assert.deepEqual(rel(sc), ['ctx.txt:3', 'ctx.txt:8', 'ctx.txt:9']);
			sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'NEE+DLE', regex: true, ignoreCase: true, include: 'src/**' }), 'regex-i');
			assert.deepEqual(rel(sc), ['src/b.ts:1', 'src/c.c:1', 'src/gen/d.ts:1']);
			sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'l3 needle', regex: false }), 'lit-space');
			assert.deepEqual(rel(sc), ['ctx.txt:3']);
			sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'n.edle', regex: false }), 'lit-dot');
			assert.deepEqual(sc.matches, []);
			sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'needle',
			    excludePatterns: ['node_modules', '*.log', 'src/gen', 'ctx.txt'] }), 'excl');
			assert.deepEqual(rel(sc), ['a.ts:1', 'src/c.c:1', 'sub/ok.txt:1']);
		});

		test('contextLines: before and after, merged in the text', async () => {
			const r = await call(srv, 'search_file_contents', { path: 'ctx.txt'.replace('ctx.txt', '.'), pattern: 'needle',
			    include: '/ctx.txt', contextLines: 2 });
			const sc = ok(r, 'ctx');
			assert.deepEqual(sc.matches, [
				{ file: tree.p('ctx.txt'), line: 3, column: 4, text: 'l3 needle',
				  before: [{ line: 1, text: 'l1' }, { line: 2, text: 'l2' }],
				  after: [{ line: 4, text: 'l4' }, { line: 5, text: 'l5' }] },
				{ file: tree.p('ctx.txt'), line: 8, column: 4, text: 'l8 needle',
				  before: [{ line: 6, text: 'l6' }, { line: 7, text: 'l7' }],
				  after: [{ line: 9, text: 'l9 needle' }, { line: 10, text: 'l10' }] },
				{ file: tree.p('ctx.txt'), line: 9, column: 4, text: 'l9 needle',
				  before: [{ line: 7, text: 'l7' }, { line: 8, text: 'l8 needle' }],
				  after: [{ line: 10, text: 'l10' }] },
			]);
			const f = tree.p('ctx.txt');
			assert.equal(textOf(r), [
				`${f}-1-l1`, `${f}-2-l2`, `${f}:3:l3 needle`, `${f}-4-l4`, `${f}-5-l5`,
				`${f}-6-l6`, `${f}-7-l7`, `${f}:8:l8 needle`, `${f}:9:l9 needle`, `${f}-10-l10`, '',
			].join('\n'));
			const r1 = await call(srv, 'search_file_contents', { path: '.', pattern: 'needle', include: 'ctx.txt', contextLines: 1 });
			assert.equal(textOf(r1), [
				`${f}-2-l2`, `${f}:3:l3 needle`, `${f}-4-l4`, '--',
				`${f}-7-l7`, `${f}:8:l8 needle`, `${f}:9:l9 needle`, `${f}-10-l10`, '',
			].join('\n'));
		});

		test('maxResults and offset page through matches', async () => {
			const r = await call(srv, 'search_file_contents', { path: '.', pattern: 'needle', maxResults: 2 });
			const sc = ok(r, 'cap');
			assert.deepEqual(rel(sc), ['a.ts:1', 'ctx.txt:3']);
			assert.equal(sc.truncated, true);
			assert.deepEqual(sc.truncated_by, ['maxResults']);
			assert.equal(sc.next_offset, 2);
			assert.match(note(r), /maxResults=2 reached.*offset=2 to continue/);
			const sc2 = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'needle', maxResults: 3, offset: 2 }), 'p2');
			assert.deepEqual(rel(sc2), ['ctx.txt:8', 'ctx.txt:9', 'logs/app.log:1']);
			assert.equal(sc2.next_offset, 5);
			const sc3 = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'needle', offset: 5 }), 'p3');
			assert.deepEqual(rel(sc3), ['node_modules/x/index.js:1', 'src/c.c:1', 'src/gen/d.ts:1', 'sub/ok.txt:1']);
			assert.equal(sc3.truncated, false);
		});

		test('a bad regex is a clear error', async () => {
			const t = err(await call(srv, 'search_file_contents', { path: '.', pattern: 'a(b', regex: true }), 'bad');
			assert.match(t, /^pattern 'a\(b': not a valid regular expression \(PCRE2 syntax\): missing closing parenthesis at offset 3$/);
			// The same text as a literal is fine.
			ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'a(b' }), 'literal');
			assert.match(err(await call(srv, 'search_file_contents', { path: '.', pattern: 'x', include: 'a**' }), 'inc'), /^include 'a\*\*': /);
		});

		test('path refusals', async () => {
			assert.equal(err(await call(srv, 'search_file_contents', { path: 'a.ts', pattern: 'x' }), 'file'), "'a.ts': not a directory");
			assert.match(err(await call(srv, 'search_file_contents', { path: 'private', pattern: 'TOOLCELL' }), 'denied'), /denied by policy/);
			assert.ok(!transcript(srv).includes(secret));
		});
	});
});

describe('search_file_contents: file kinds and line handling', () => {
	let tree;
	let srv;

	const long = `${'x'.repeat(2000)}NEEDLE${'y'.repeat(3000)}\n`;
	const veryLong = `${'z'.repeat(70000)}NEEDLE\nnext NEEDLE\n`;

	before(async () => {
		tree = await makeTree({
			'bin.dat': Buffer.concat([Buffer.from('NEEDLE\n'), Buffer.from([0, 1, 2, 3]), Buffer.from('NEEDLE\n')]),
			'late-nul.txt': Buffer.concat([Buffer.from('a'.repeat(70000) + '\n'), Buffer.from([0]), Buffer.from('NEEDLE here\n')]),
			'latin1.txt': Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' NEEDLE '), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]),
			'long.txt': long,
			'verylong.txt': veryLong,
			'crlf.txt': 'one NEEDLE\r\ntwo\r\n',
			'tabs.txt': '\tindented NEEDLE\r and\x1b[2J\n',
			'nonl.txt': 'first\nlast NEEDLE',
			'big.txt': `NEEDLE\n${'b'.repeat(2 * 1024 * 1024)}\n`,
			// Line 2 crosses the first 64 KiB read.
			'spanning.txt': `${'s'.repeat(65000)}\n${'t'.repeat(530)}abc NEEDLE def\n`,
			'name\nwith-newline.txt': 'NEEDLE\n',
			'fifo': fifo(),
		});
		srv = await startServer([tree.root]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	test('binary skipped, long lines cut round the match, non-UTF-8 replaced', async () => {
		const r = await withTimeout(call(srv, 'search_file_contents', { path: '.', pattern: 'NEEDLE' }), 8000, 'search');
		const sc = ok(r, 'kinds');
		const by = Object.fromEntries(sc.matches.map((m) => [`${path.basename(m.file)}:${m.line}`, m]));
		assert.deepEqual(Object.keys(by).sort(), [
			'big.txt:1', 'crlf.txt:1', 'late-nul.txt:2', 'latin1.txt:1', 'long.txt:1',
			'name\nwith-newline.txt:1', 'nonl.txt:2', 'spanning.txt:2', 'tabs.txt:1', 'verylong.txt:2',
		].sort());
		assert.equal(sc.files_skipped.binary, 1);
		assert.equal(sc.files_skipped.special, 1);
		assert.equal(by['crlf.txt:1'].text, 'one NEEDLE');
		assert.equal(by['nonl.txt:2'].text, 'last NEEDLE');
		// Tabs stay; other control characters are escaped in the text
		// only.
		assert.equal(by['tabs.txt:1'].text, '\tindented NEEDLE\r and\x1b[2J');
		assert.equal(by['late-nul.txt:2'].text, '\ufffdNEEDLE here');
		assert.equal(by['latin1.txt:1'].text, 'caf\ufffd NEEDLE \ufffd\ufffd');
		const l = by['long.txt:1'];
		assert.equal(l.cut, true);
		assert.equal(l.column, 2001);
		assert.equal(Buffer.byteLength(l.text), 500);
		assert.ok(l.text.includes('NEEDLE'));
		assert.equal(l.text, `${'x'.repeat(100)}NEEDLE${'y'.repeat(394)}`);
		assert.equal(by['spanning.txt:2'].column, 535);
		assert.equal(by['spanning.txt:2'].text, `${'t'.repeat(486)}abc NEEDLE def`);
		assert.equal(by['spanning.txt:2'].cut, true);
		// A line longer than the scan cap is searched in its first 64 KiB only.
		assert.equal(by['verylong.txt:2'].text, 'next NEEDLE');
		assert.equal(sc.long_lines, undefined);
		// Text: a cut line says so; a newline in a name cannot start a line.
		const t = textOf(r);
		assert.ok(t.includes(`${tree.p('long.txt')}:1:${'x'.repeat(100)}NEEDLE`));
		assert.ok(t.includes(' [line cut]\n'));
		assert.ok(t.includes(`${tree.root}/name\\u000Awith-newline.txt:1:NEEDLE\n`));
		assert.ok(t.includes(`${tree.p('tabs.txt')}:1:\tindented NEEDLE\\u000D and\\u001B[2J\n`));
		assert.ok(by['name\nwith-newline.txt:1'].file.endsWith('name\nwith-newline.txt'));
	});

	test('maxFileBytes skips larger files', async () => {
		const sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'NEEDLE', maxFileBytes: 1024 * 1024 }), 'max');
		assert.ok(!sc.matches.some((m) => m.file.endsWith('big.txt')));
		assert.equal(sc.files_skipped.too_large, 1);
		const sc2 = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'NEEDLE', maxFileBytes: 100 }), 'max100');
		assert.deepEqual(sc2.matches.map((m) => path.basename(m.file)).sort(), ['crlf.txt', 'latin1.txt', 'name\nwith-newline.txt', 'nonl.txt', 'tabs.txt']);
	});

	test('FIFOs in the tree never block directory_tree or search_files', async () => {
		const r = await withTimeout(call(srv, 'directory_tree', { path: '.' }), 5000, 'tree');
		assert.deepEqual(ok(r, 'tree').tree.find((n) => n.name === 'fifo'), { name: 'fifo', type: 'other' });
		const s = await withTimeout(call(srv, 'search_files', { path: '.', pattern: 'fifo' }), 5000, 'search');
		assert.deepEqual(ok(s, 'fifo').matches, [tree.p('fifo')]);
	});
});

describe('escapes and symlinks', () => {
	let base;
	let root;
	let evil;
	let secret;
	let srv;

	before(async () => {
		secret = secretToken();
		base = await makeTree({
			'allowed/ok.txt': 'ok\n',
			'allowed/sub/in.txt': 'in\n',
			'allowed-evil/secret.txt': `${secret}\n`,
			'allowed-evil/deeper/secret2.txt': `${secret}\n`,
		});
		root = base.p('allowed');
		evil = base.p('allowed-evil');
		await ln(evil, `${root}/abs-dir`);
		await ln('../allowed-evil', `${root}/rel-dir`);
		await ln('/', `${root}/slash`);
		await ln('..', `${root}/dotdot`);
		await ln(`/proc/self/root${evil}`, `${root}/proc-link`);
		await ln('sub', `${root}/inside-link`);
		await ln('cycle-b', `${root}/cycle-a`);
		await ln('cycle-a', `${root}/cycle-b`);
		await mkdir(`${root}/sub/loopdir`);
		await chmod(`${root}/sub/loopdir`, 0o755);
		await ln('..', `${root}/sub/loopdir/up`);
		srv = await startServer([root]);
	});

	after(async () => {
		await srv?.close();
		await base?.cleanup();
	});

	const escapes = () => [
		evil, `${evil}/deeper`, `${root}-evil`, `${root}/../allowed-evil`, '../allowed-evil', '..',
		`${root}/..`, 'sub/../../allowed-evil', `/proc/self/root${evil}`, `/proc/self/root${root}`,
		'/proc/self/cwd', '/etc', '/', `${root}/abs-dir`, 'rel-dir', 'slash', 'dotdot', 'proc-link',
		'abs-dir/deeper', 'slash/etc',
	];

	for (const tool of TOOLS) {
		test(`${tool} refuses every escape`, async () => {
			for (const p of escapes()) {
				const args = tool === 'directory_tree' ? { path: p } : { path: p, pattern: '*' };
				const r = await call(srv, tool, args);
				const t = err(r, `${tool} ${p}`);
				assert.match(t, /outside the allowed directories|not found|symbolic link|escapes|denied|not a directory|too many levels/, `${tool} ${p}: ${t}`);
			}
			assert.ok(!transcript(srv).includes(secret));
			assert.ok(!transcript(srv).includes('secret.txt'));
		});
	}

	test('symlinks inside are listed, never followed, loops cannot hang', async () => {
		const r = await withTimeout(call(srv, 'directory_tree', { path: '.' }), 5000, 'tree');
		const sc = ok(r, 'tree');
		assert.deepEqual(shape(sc.tree), ['abs-dir', 'cycle-a', 'cycle-b', 'dotdot', 'inside-link', 'ok.txt',
		    'proc-link', 'rel-dir', 'slash', ['sub', ['in.txt', ['loopdir', ['up']]]]]);
		for (const n of ['abs-dir', 'rel-dir', 'slash', 'dotdot', 'proc-link', 'inside-link', 'cycle-a'])
			assert.deepEqual(sc.tree.find((x) => x.name === n), { name: n, type: 'symlink' });
		const s = ok(await call(srv, 'search_files', { path: '.', pattern: '**' }), 'all');
		assert.equal(s.matches.length, 13);
		assert.ok(!s.matches.some((m) => m.includes('secret')));
		const c = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'TOOLCELL' }), 'grep');
		assert.deepEqual(c.matches, []);
		assert.equal(c.files_skipped.symlinks, 9);
		const c2 = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'in' }), 'grep2');
		assert.deepEqual(c2.matches.map((m) => m.file), [`${root}/sub/in.txt`]);
		assert.ok(!transcript(srv).includes(secret));
	});

	test('a symlink to a directory inside may be named as the start', async () => {
		const sc = ok(await call(srv, 'directory_tree', { path: 'inside-link' }), 'inside');
		assert.deepEqual(shape(sc.tree), ['in.txt', ['loopdir', ['up']]]);
	});
});

describe('a huge directory is bounded', () => {
	let tree;
	let srv;
	const N = 20000;

	before(async () => {
		tree = await makeTree({ 'big/.keep': '', 'slow/.keep': '' });
		const big = tree.p('big');
		const names = Array.from({ length: N }, (_, i) => `f${String(i).padStart(5, '0')}.txt`);
		for (let i = 0; i < names.length; i += 500)
			await Promise.all(names.slice(i, i + 500).map((n) => writeFile(path.join(big, n), `${n} content\n`)));
		// A few large files with many lines, for the time budget.
		const line = 'the quick brown fox jumps over the lazy dog 0123456789 abcdefghij\n';
		const body = line.repeat(Math.ceil((8 << 20) / line.length));
		for (let i = 0; i < 8; i++)
			await writeFile(tree.p(`slow/s${i}.txt`), body);
		srv = await startServer([tree.root]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	test('directory_tree stops at maxEntries, quickly', async () => {
		const t0 = Date.now();
		const r = await call(srv, 'directory_tree', { path: 'big' });
		const sc = ok(r, 'big tree');
		assert.ok(Date.now() - t0 < 8000, `took ${Date.now() - t0} ms`);
		assert.equal(sc.entries, 2000);
		assert.equal(sc.tree.length, 2000);
		assert.equal(sc.truncated, true);
		assert.deepEqual(sc.truncated_by, ['maxEntries']);
		assert.equal(sc.tree[0], '.keep');
		assert.equal(sc.tree[1999], 'f01998.txt');
		const r2 = await call(srv, 'directory_tree', { path: 'big', maxEntries: 10000 });
		assert.equal(ok(r2, 'max').entries, 10000);
	});

	test('search_files pages through 20,000 matches', async () => {
		const t0 = Date.now();
		const sc = ok(await call(srv, 'search_files', { path: '.', pattern: '*.txt' }), 'big search');
		assert.ok(Date.now() - t0 < 8000);
		assert.equal(sc.matches.length, 1000);
		assert.equal(sc.truncated, true);
		assert.equal(sc.next_offset, 1000);
		const last = ok(await call(srv, 'search_files', { path: 'big', pattern: '*.txt', offset: 19990, maxResults: 10000 }), 'last');
		assert.deepEqual(last.matches.map((m) => path.basename(m)),
		    Array.from({ length: 10 }, (_, i) => `f${19990 + i}.txt`));
		assert.equal(last.truncated, false);
	});

	test('search_file_contents over 20,000 files', async () => {
		const sc = ok(await call(srv, 'search_file_contents', { path: 'big', pattern: 'f19999.txt content' }), 'grep big');
		assert.deepEqual(sc.matches.map((m) => path.basename(m.file)), ['f19999.txt']);
		assert.equal(sc.files_scanned, N + 1);
		const capped = ok(await call(srv, 'search_file_contents', { path: 'big', pattern: 'content' }), 'capped');
		assert.equal(capped.matches.length, 500);
		assert.equal(capped.truncated, true);
	});

	test('the time budget stops a long search with what it found', async () => {
		const t0 = Date.now();
		const r = await call(srv, 'search_file_contents', { path: 'slow', pattern: 'L[a-z]+Y D[o]G 999', regex: true,
		    ignoreCase: true, timeBudget: 100 });
		const took = Date.now() - t0;
		const sc = ok(r, 'budget');
		assert.equal(sc.truncated, true);
		assert.deepEqual(sc.truncated_by, ['timeBudget']);
		assert.equal(sc.next_offset, 0);
		assert.match(note(r), /time budget \(100 ms\) ran out/);
		assert.ok(took < 5000, `took ${took} ms`);
	});
});

describe('unreadable entries and the output cap', () => {
	let tree;
	let srv;

	before(async () => {
		const line = `${'w'.repeat(390)} needle\n`;
		tree = await makeTree({
			'a/ok.txt': 'needle\n',
			'locked/inner.txt': 'needle\n',
			'z-locked.txt': 'needle\n',
			'many/m.txt': line.repeat(3000),
		});
		// Mode 0: refused even to a root child, which has no capability
		// to override file permissions.
		await chmod(tree.p('locked'), 0o000);
		await chmod(tree.p('z-locked.txt'), 0o000);
		srv = await startServer([tree.root]);
	});

	after(async () => {
		await srv?.close();
		await chmod(tree.p('locked'), 0o755).catch(() => {});
		await tree?.cleanup();
	});

	test('an unreadable directory is marked, not fatal', async () => {
		const r = await call(srv, 'directory_tree', { path: '.' });
		const sc = ok(r, 'tree');
		assert.deepEqual(sc.tree.find((n) => n.name === 'locked'),
		    { name: 'locked', type: 'directory', error: 'Permission denied', truncated: true });
		assert.match(textOf(r), /\nlocked\/\n  \[cannot be read: Permission denied\]\n/);
		assert.equal(sc.truncated, true);
		assert.deepEqual(sc.truncated_by, ['unreadable']);
		assert.match(note(r), /1 directory could not be read/);
		const s = ok(await call(srv, 'search_files', { path: '.', pattern: '*.txt' }), 'search');
		assert.deepEqual(s.matches.map((m) => path.relative(tree.root, m)), ['a/ok.txt', 'many/m.txt', 'z-locked.txt']);
		assert.deepEqual(s.truncated_by, ['unreadable']);
		assert.equal(s.next_offset, undefined);
	});

	test('an unreadable file is counted and skipped', async () => {
		const sc = ok(await call(srv, 'search_file_contents', { path: '.', pattern: 'needle',
		    excludePatterns: ['many'] }), 'grep');
		assert.deepEqual(sc.matches.map((m) => path.relative(tree.root, m.file)), ['a/ok.txt']);
		assert.equal(sc.files_skipped.unreadable, 1);
		assert.deepEqual(sc.truncated_by, ['unreadable']);
	});

	test('the answer is capped in bytes', async () => {
		const r = await call(srv, 'search_file_contents', { path: 'many', pattern: 'needle', maxResults: 5000, contextLines: 3 });
		const sc = ok(r, 'big');
		assert.equal(sc.truncated, true);
		assert.deepEqual(sc.truncated_by, ['outputSize']);
		assert.ok(sc.matches.length > 200 && sc.matches.length < 3000, `${sc.matches.length}`);
		assert.equal(sc.next_offset, sc.matches.length);
		assert.ok(JSON.stringify(r).length < 3 * 1024 * 1024, `${JSON.stringify(r).length}`);
		assert.match(note(r), /the answer reached its cap of about 2097152 bytes/);
		// Without context, more matches fit.
		const sc0 = ok(await call(srv, 'search_file_contents', { path: 'many', pattern: 'needle', maxResults: 5000 }), 'ctx0');
		assert.deepEqual(sc0.truncated_by, ['outputSize']);
		assert.ok(sc0.matches.length > sc.matches.length);
	});
});
