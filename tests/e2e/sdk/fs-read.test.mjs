// fs-read.test.mjs: read_media_file, read_multiple_files and
// list_directory_with_sizes, driven through the official MCP client:
// every option, the caps, per-file failures, deny rules, special files and
// the EscapeRoute paths.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, symlink as ln, truncate, writeFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import {
	call, dir, fifo, makeScratch, makeTree, secretToken, startServer, symlink,
	textOf, transcript, withTimeout,
} from './lib.mjs';

/* Asserts a tool result is a success and returns its structuredContent. */
function ok(result, what) {
	assert.notEqual(result.isError, true,
	    `${what}: unexpected isError: ${JSON.stringify(result.content).slice(0, 400)}`);
	assert.equal(typeof result.structuredContent, 'object', `${what}: no structuredContent`);
	textOf(result);
	return result.structuredContent;
}

/* Asserts a tool result is a tool error and returns its text. */
function err(result, what) {
	assert.equal(result.isError, true, `${what}: expected isError, got ${JSON.stringify(result).slice(0, 400)}`);
	const t = textOf(result);
	assert.ok(t.length > 0, `${what}: empty error text`);
	assert.equal(result.structuredContent, undefined, `${what}: error carries structuredContent`);
	return t;
}

const rnd = (n) => randomBytes(n);
const u32le = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const riff = (kind, body) => Buffer.concat([Buffer.from('RIFF'), u32le(4 + body.length),
    Buffer.from(kind), body]);

/* Media fixtures: name -> [bytes, expected MIME type, content item type]. */
const MEDIA = {
	'img/a.png': [Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), rnd(300)]), 'image/png', 'image'],
	'img/b.jpg': [Buffer.concat([Buffer.from('ffd8ffe0', 'hex'), rnd(200)]), 'image/jpeg', 'image'],
	'img/c.JPEG': [Buffer.concat([Buffer.from('ffd8ffdb', 'hex'), rnd(20)]), 'image/jpeg', 'image'],
	'img/d.gif': [Buffer.concat([Buffer.from('GIF89a'), rnd(100)]), 'image/gif', 'image'],
	'img/e.webp': [riff('WEBP', rnd(64)), 'image/webp', 'image'],
	'img/f.bmp': [Buffer.concat([Buffer.from('BM'), rnd(62)]), 'image/bmp', 'image'],
	'img/g.svg': [Buffer.from('\ufeff<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>\n'),
	    'image/svg+xml', 'image'],
	'img/h.ico': [Buffer.concat([Buffer.from('00000100', 'hex'), rnd(40)]), 'image/x-icon', 'image'],
	'snd/a.mp3': [Buffer.concat([Buffer.from('ID3'), rnd(128)]), 'audio/mpeg', 'audio'],
	'snd/frame.mp3': [Buffer.concat([Buffer.from('fffb9064', 'hex'), rnd(128)]), 'audio/mpeg', 'audio'],
	'snd/b.wav': [riff('WAVE', rnd(100)), 'audio/wav', 'audio'],
	'snd/c.ogg': [Buffer.concat([Buffer.from('OggS'), rnd(60)]), 'audio/ogg', 'audio'],
	'snd/d.flac': [Buffer.concat([Buffer.from('fLaC'), rnd(60)]), 'audio/flac', 'audio'],
	'snd/e.m4a': [Buffer.concat([Buffer.from('00000020', 'hex'), Buffer.from('ftypM4A '), rnd(60)]),
	    'audio/mp4', 'audio'],
	'snd/f.m4a': [Buffer.concat([Buffer.from('00000020', 'hex'), Buffer.from('ftypisom'), rnd(60)]),
	    'audio/mp4', 'audio'],
	// A signature wins over a missing or wrong extension.
	'noext': [Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), rnd(30)]), 'image/png', 'image'],
	'misnamed.png': [Buffer.concat([Buffer.from('ffd8ffe1', 'hex'), rnd(30)]), 'image/jpeg', 'image'],
};

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');

describe('toolcell-fs read tools', () => {
	let tree;
	let srv;
	let secret;

	before(async () => {
		secret = secretToken();
		const media = Object.fromEntries(Object.entries(MEDIA).map(([k, [b]]) => [k, b]));
		tree = await makeTree({
			...media,
			'doc.pdf': Buffer.concat([Buffer.from('%PDF-1.4\n'), rnd(50)]),
			'data.bin': rnd(77),
			'my file%.dat': Buffer.from([0, 1, 2, 3]),
			'fake.png': 'this is not a png\n',
			'fake.mp3': 'nor an mp3\n',
			'empty.png': '',
			'a.txt': 'alpha\n',
			'b.txt': 'bravo\n',
			'lines.txt': TEN,
			'big1.txt': `${'y'.repeat(1023)}\n`.repeat(4 * 1024),
			'big2.txt': `${'z'.repeat(1023)}\n`.repeat(4 * 1024),
			'bad-utf8.txt': Buffer.from([0x6f, 0x6b, 0xff, 0x0a]),
			'.env': `${secret}\n`,
			'conf/.env.local': `${secret}\n`,
			'fifo': fifo(),
			'sub/inner.txt': 'inner\n',
			'sizes/big.bin': Buffer.alloc(3000, 1),
			'sizes/mid.bin': Buffer.alloc(1500, 2),
			'sizes/small.txt': 'x',
			'sizes/zero': '',
			'sizes/tie-b': Buffer.alloc(1500, 3),
			'sizes/d1': dir(),
			'sizes/d2/f': 'f',
			'sizes/link': symlink('big.bin'),
			'sizes/fifo': fifo(),
			'sizes/.env': `${secret}\n`,
			'sizes/id_rsa': `${secret}\n`,
			'sizes/.ssh/config': `${secret}\n`,
			'denied-only/.env': `${secret}\n`,
			// Links whose own names no deny rule matches, to what
			// the rules deny: only the child's check of what it
			// opened stands in their way in read_multiple_files,
			// whose server leaves a denied path to the child.
			'links/env': symlink('../.env'),
			'links/local': symlink('../conf/.env.local'),
			'links/ssh': symlink('../sizes/.ssh'),
			'links/chain': symlink('env'),
			'big.png': '',
		});
		// A sparse file one byte over the default cap.
		await truncate(tree.p('big.png'), 7 * 1024 * 1024 + 1);
		srv = await startServer([tree.root]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	test('tools/list: the three tools, read-only and idempotent; output schemas but for media', async () => {
		const { tools } = await srv.client.listTools();
		for (const name of ['read_media_file', 'read_multiple_files', 'list_directory_with_sizes']) {
			const t = tools.find((x) => x.name === name);
			assert.ok(t, `${name} not listed`);
			assert.equal(t.annotations.readOnlyHint, true, name);
			assert.equal(t.annotations.idempotentHint, true, name);
			assert.equal(t.annotations.openWorldHint, false, name);
			// An image result has no structuredContent (a host that
			// passes on only that half would drop the image), so
			// read_media_file promises none.
			if (name === 'read_media_file')
				assert.equal(t.outputSchema, undefined, name);
			else
				assert.equal(t.outputSchema.type, 'object', name);
		}
		const multi = tools.find((x) => x.name === 'read_multiple_files');
		assert.equal(multi.inputSchema.properties.paths.type, 'array');
		assert.equal(multi.inputSchema.properties.paths.maxItems, 1024);
		assert.deepEqual(multi.inputSchema.required, ['paths']);
		const sized = tools.find((x) => x.name === 'list_directory_with_sizes');
		assert.deepEqual(sized.inputSchema.properties.sortBy.enum, ['name', 'size']);
		const media = tools.find((x) => x.name === 'read_media_file');
		assert.equal(media.inputSchema.properties.max_bytes.default, 7340032);
		assert.equal(media.inputSchema.properties.max_bytes.maximum, 33554432);
	});

	describe('read_media_file', () => {
		for (const [rel, [, mime, kind]] of Object.entries(MEDIA)) {
			test(`${rel} is ${kind} ${mime}, base64 of the file's bytes`, async () => {
				const r = await call(srv, 'read_media_file', { path: tree.p(rel) });
				const bytes = await readFile(tree.p(rel));
				if (kind === 'image') {
					// No structuredContent: hosts that prefer it
					// (Codex) would pass on the description alone.
					assert.notEqual(r.isError, true, rel);
					assert.equal(r.structuredContent, undefined, rel);
					assert.equal(r.content.length, 2, rel);
					assert.equal(r.content[1].type, 'image', rel);
					assert.equal(r.content[1].mimeType, mime, rel);
					assert.equal(r.content[1].data, bytes.toString('base64'), rel);
					assert.equal(textOf(r), `${tree.p(rel)}: ${mime}, ${bytes.length} bytes; the `
					    + `image follows as base64${rel === 'misnamed.png'
					    ? ' (its name suggests image/png, but the content says otherwise)' : ''}\n`);
					return;
				}
				const sc = ok(r, rel);
				assert.equal(r.content.length, 2, JSON.stringify(r.content).slice(0, 300));
				const item = r.content[1];
				assert.equal(item.type, kind);
				assert.equal(item.mimeType, mime);
				assert.ok(Buffer.from(item.data, 'base64').equals(bytes), 'base64 round trip');
				assert.equal(item.data, bytes.toString('base64'));
				assert.deepEqual(Object.keys(sc).sort(), rel === 'misnamed.png'
				    ? ['detected', 'extension_type', 'mimeType', 'path', 'size', 'type']
				    : ['detected', 'mimeType', 'path', 'size', 'type']);
				assert.equal(sc.path, tree.p(rel));
				assert.equal(sc.mimeType, mime);
				assert.equal(sc.size, bytes.length);
				assert.equal(sc.type, kind);
				assert.equal(sc.detected, 'content');
				// The body is carried once: not in the text, not in
				// structuredContent.
				assert.ok(!textOf(r).includes(item.data));
				assert.ok(!JSON.stringify(sc).includes(item.data));
				assert.equal(textOf(r), `${tree.p(rel)}: ${mime}, ${bytes.length} bytes; the `
				    + `${kind} follows as base64${rel === 'misnamed.png'
				    ? ' (its name suggests image/png, but the content says otherwise)' : ''}\n`);
			});
		}

		test('a misnamed file is typed by its content', async () => {
			const r = await call(srv, 'read_media_file', { path: 'misnamed.png' });
			assert.equal(r.content[1].mimeType, 'image/jpeg');
			assert.match(textOf(r), /: image\/jpeg, .* \(its name suggests image\/png, but the content says otherwise\)\n$/);
		});

		test('a PDF is an embedded resource blob with a file: URI', async () => {
			const r = await call(srv, 'read_media_file', { path: 'doc.pdf' });
			const sc = ok(r, 'pdf');
			const bytes = await readFile(tree.p('doc.pdf'));
			assert.deepEqual(r.content[1], {
				type: 'resource',
				resource: { uri: `file://${tree.p('doc.pdf')}`, mimeType: 'application/pdf',
				    blob: bytes.toString('base64') },
			});
			assert.deepEqual(sc, { path: tree.p('doc.pdf'), mimeType: 'application/pdf',
			    size: bytes.length, type: 'resource', detected: 'content' });
		});

		test('an unknown file is application/octet-stream; its URI is percent-encoded', async () => {
			let r = await call(srv, 'read_media_file', { path: 'data.bin' });
			let sc = ok(r, 'data.bin');
			assert.equal(sc.mimeType, 'application/octet-stream');
			assert.equal(sc.detected, 'none');
			assert.equal(r.content[1].type, 'resource');
			assert.ok(Buffer.from(r.content[1].resource.blob, 'base64').equals(await readFile(tree.p('data.bin'))));
			r = await call(srv, 'read_media_file', { path: 'my file%.dat' });
			sc = ok(r, 'my file%.dat');
			assert.equal(r.content[1].resource.uri, `file://${tree.p('my%20file%25.dat')}`);
			assert.equal(r.content[1].resource.blob, 'AAECAw==');
		});

		test('bytes that are not what the name says are not sent as an image or audio', async () => {
			for (const [rel, claimed] of [['fake.png', 'image/png'], ['fake.mp3', 'audio/mpeg'],
			    ['empty.png', 'image/png']]) {
				const r = await call(srv, 'read_media_file', { path: rel });
				const sc = ok(r, rel);
				assert.equal(sc.mimeType, 'application/octet-stream', rel);
				assert.equal(sc.type, 'resource', rel);
				assert.equal(sc.detected, 'none', rel);
				assert.equal(sc.extension_type, claimed, rel);
				assert.equal(r.content[1].type, 'resource', rel);
				assert.match(textOf(r), /its name suggests .* but the content does not match it/);
				const bytes = await readFile(tree.p(rel));
				assert.equal(r.content[1].resource.blob, bytes.toString('base64'), rel);
			}
		});

		test('a file over the default cap of 7 MiB is refused, naming the size and the cap', async () => {
			const t = err(await call(srv, 'read_media_file', { path: 'big.png' }), 'big');
			assert.equal(t, "'big.png': too large: 7340033 bytes, over the cap of 7340032 bytes; "
			    + 'raise max_bytes to read it');
		});

		test('max_bytes raises the cap: 7 MiB + 1 byte comes whole', async () => {
			const r = await call(srv, 'read_media_file', { path: 'big.png', max_bytes: 7340033 },
			    { timeout: 60_000 });
			const sc = ok(r, 'big raised');
			assert.equal(sc.size, 7340033);
			assert.equal(sc.mimeType, 'application/octet-stream');
			const blob = Buffer.from(r.content[1].resource.blob, 'base64');
			assert.equal(blob.length, 7340033);
			assert.ok(blob.equals(Buffer.alloc(7340033)));
		});

		test('max_bytes lowers the cap', async () => {
			const t = err(await call(srv, 'read_media_file', { path: 'img/a.png', max_bytes: 100 }), 'cap');
			assert.equal(t, "'img/a.png': too large: 308 bytes, over the cap of 100 bytes; "
			    + 'raise max_bytes to read it');
			const r = await call(srv, 'read_media_file', { path: 'img/a.png', max_bytes: 308 });
			assert.equal(Buffer.from(r.content[1].data, 'base64').length, 308);
		});

		test('max_bytes past the hard maximum is an argument error', async () => {
			const t = err(await call(srv, 'read_media_file', { path: 'img/a.png', max_bytes: 33554433 }), 'max');
			assert.match(t, /max_bytes/);
		});

		test('a denied file is refused, naming the rule', async () => {
			const t = err(await call(srv, 'read_media_file', { path: '.env' }), '.env');
			assert.equal(t, "'.env': denied by policy rule 'deny **/.env' (built in)");
		});

		test('a directory, a missing file and a FIFO are refused promptly', async () => {
			assert.equal(err(await call(srv, 'read_media_file', { path: 'img' }), 'dir'),
			    "'img': is a directory; use list_directory");
			assert.equal(err(await call(srv, 'read_media_file', { path: 'nope.png' }), 'missing'),
			    "'nope.png': not found");
			const t = err(await withTimeout(call(srv, 'read_media_file', { path: 'fifo' }), 5000,
			    'read_media_file on a FIFO'), 'fifo');
			assert.equal(t, "'fifo': not a regular file (it is a fifo)");
		});
	});

	describe('read_multiple_files', () => {
		test('reads each file; text blocks joined by ---', async () => {
			const r = await call(srv, 'read_multiple_files', { paths: ['a.txt', tree.p('b.txt')] });
			const sc = ok(r, 'two files');
			assert.deepEqual(sc, {
				files: [
					{ path: 'a.txt', resolved: tree.p('a.txt'), content: 'alpha\n', size: 6,
					    lines: 1, truncated: false },
					{ path: tree.p('b.txt'), resolved: tree.p('b.txt'), content: 'bravo\n', size: 6,
					    lines: 1, truncated: false },
				],
				truncated: false, bytes: 12, errors: 0,
			});
			assert.equal(textOf(r), `a.txt:\nalpha\n\n\n---\n${tree.p('b.txt')}:\nbravo\n\n`);
		});

		test('one missing, one directory, one FIFO and one outside do not stop the others', async () => {
			const r = await withTimeout(call(srv, 'read_multiple_files',
			    { paths: ['a.txt', 'nope.txt', 'sub', 'fifo', '/etc/passwd', 'sub/inner.txt'] }),
			5000, 'batch with a FIFO');
			const sc = ok(r, 'mixed');
			assert.equal(sc.errors, 4);
			assert.equal(sc.truncated, false);
			assert.equal(sc.bytes, 12);
			const [a, nope, sub, f, out, inner] = sc.files;
			assert.equal(a.content, 'alpha\n');
			assert.deepEqual(nope, { path: 'nope.txt', error: "'nope.txt': not found", truncated: false });
			assert.deepEqual(sub, { path: 'sub', error: "'sub': is a directory; use list_directory",
			    truncated: false });
			assert.deepEqual(f, { path: 'fifo', error: "'fifo': not a regular file (it is a fifo)",
			    truncated: false });
			assert.equal(out.path, '/etc/passwd');
			assert.match(out.error, /^'\/etc\/passwd': outside the allowed directories/);
			assert.equal(out.content, undefined);
			assert.equal(inner.content, 'inner\n');
			const t = textOf(r);
			assert.ok(t.startsWith('a.txt:\nalpha\n\n\n---\nnope.txt: Error - \'nope.txt\': not found\n---\n'
			    + 'sub: Error - \'sub\': is a directory; use list_directory\n---\n'), t);
			assert.ok(t.endsWith('\n---\nsub/inner.txt:\ninner\n\n'), t);
			assert.ok(!/root:x?:?0:0:/.test(t));
		});

		test('a path the deny rules refuse fails alone, in the child; the others are read', async () => {
			const r = await call(srv, 'read_multiple_files', { paths: ['a.txt', '.env', 'b.txt'] });
			const sc = ok(r, 'denied');
			assert.equal(sc.files[0].content, 'alpha\n');
			assert.deepEqual(sc.files[1], { path: '.env',
			    error: "'.env': denied by policy rule 'deny **/.env' (built in)", truncated: false });
			assert.equal(sc.files[2].content, 'bravo\n');
			assert.ok(!JSON.stringify(r).includes(secret));
			const r2 = await call(srv, 'read_multiple_files', { paths: ['conf/.env.local'] });
			assert.deepEqual(ok(r2, 'denied 2').files, [{ path: 'conf/.env.local',
			    error: "'conf/.env.local': denied by policy rule 'deny **/.env.*' (built in)", truncated: false }]);
		});

		test('a symlink to a denied file is refused by what the child opened; the others are read', async () => {
			const paths = ['a.txt', 'links/env', 'links/local', 'links/ssh/config', 'links/chain',
			    tree.p('links/env'), 'b.txt'];
			const r = await call(srv, 'read_multiple_files', { paths });
			const sc = ok(r, 'links');
			assert.equal(sc.files.length, paths.length);
			assert.equal(sc.files[0].content, 'alpha\n');
			assert.equal(sc.files.at(-1).content, 'bravo\n');
			const rules = ['deny **/.env', 'deny **/.env.*', 'deny **/.ssh', 'deny **/.env', 'deny **/.env'];
			rules.forEach((rule, i) => {
				const p = paths[i + 1];
				assert.deepEqual(sc.files[i + 1], { path: p,
				    error: `'${p}': denied by policy rule '${rule}' (built in)`, truncated: false }, p);
			});
			assert.equal(sc.errors, rules.length);
			assert.ok(!JSON.stringify(r).includes(secret), 'a denied file was read through a link');
		});

		test('max_bytes truncates a file at a line and says where to continue', async () => {
			const r = await call(srv, 'read_multiple_files', { paths: ['lines.txt', 'a.txt'], max_bytes: 20 });
			const sc = ok(r, 'max_bytes');
			assert.deepEqual(sc.files[0], { path: 'lines.txt', resolved: tree.p('lines.txt'),
			    content: 'line 1\nline 2\n', size: TEN.length, lines: 2, truncated: true, next_offset: 2 });
			assert.equal(sc.files[1].content, 'alpha\n');
			assert.equal(sc.truncated, true);
			assert.ok(textOf(r).includes('lines.txt:\nline 1\nline 2\n\n[truncated at max_bytes=20; 2 lines '
			    + 'returned; call read_text_file with offset=2 to continue]\n'), textOf(r));
			const cont = await call(srv, 'read_text_file', { path: 'lines.txt', offset: 2, limit: 1 });
			assert.equal(cont.structuredContent.content, 'line 3\n');
		});

		test('max_total_bytes caps the batch; files past it are not read', async () => {
			const r = await call(srv, 'read_multiple_files',
			    { paths: ['a.txt', 'lines.txt', 'b.txt'], max_total_bytes: 20 });
			const sc = ok(r, 'total');
			assert.equal(sc.bytes, 20);
			assert.equal(sc.truncated, true);
			assert.equal(sc.files[0].content, 'alpha\n');
			assert.equal(sc.files[0].truncated, false);
			assert.equal(sc.files[1].content, 'line 1\nline 2\n');
			assert.equal(sc.files[1].truncated, true);
			assert.equal(sc.files[1].next_offset, 2);
			assert.deepEqual(sc.files[2], { path: 'b.txt', resolved: tree.p('b.txt'), content: '',
			    size: 6, lines: 0, truncated: true, next_offset: 0 });
			assert.match(textOf(r), /\[truncated: the batch's cap max_total_bytes=20 was reached; 0 lines returned; call read_text_file with offset=0 to continue\]/);
		});

		test('a batch is at most 4 MiB, which reaches the official client twice over', async () => {
			// The files' text goes in content and in structuredContent:
			// 4 MiB of each stays under the 10 MiB message the client
			// accepts.  8 MiB of two 4 MiB files broke the connection.
			const big = await call(srv, 'read_multiple_files',
			    { paths: ['big1.txt', 'big2.txt'], max_bytes: 4 << 20, max_total_bytes: 8 << 20 });
			assert.equal(big.isError, true);
			assert.match(textOf(big), /max_total_bytes/);
			const r = await call(srv, 'read_multiple_files',
			    { paths: ['big1.txt', 'big2.txt'], max_bytes: 4 << 20, max_total_bytes: 4 << 20 });
			const sc = ok(r, '4 MiB batch');
			assert.equal(sc.bytes, 4 << 20);
			assert.equal(sc.files[0].content.length, 4 << 20);
			assert.equal(sc.files[1].content, '');
			assert.equal(sc.truncated, true);
		});

		test('bytes that are not UTF-8 are replaced and flagged', async () => {
			const r = await call(srv, 'read_multiple_files', { paths: ['bad-utf8.txt'] });
			const sc = ok(r, 'bad utf8');
			assert.equal(sc.files[0].content, 'ok\ufffd\n');
			assert.equal(sc.files[0].invalid_utf8, true);
			assert.match(textOf(r), /read_media_file returns the exact bytes/);
		});

		test('argument errors: no paths, too many, not an array, empty string', async () => {
			assert.match(err(await call(srv, 'read_multiple_files', { paths: [] }), 'none'), /at least one path/);
			const many = Array.from({ length: 1025 }, () => 'a.txt');
			assert.match(err(await call(srv, 'read_multiple_files', { paths: many }), 'many'), /paths.*more than 1024/);
			const most = ok(await call(srv, 'read_multiple_files', { paths: many.slice(1) }), '1024');
			assert.equal(most.files.length, 1024);
			assert.match(err(await call(srv, 'read_multiple_files', { paths: 'a.txt' }), 'string'), /paths/);
			assert.match(err(await call(srv, 'read_multiple_files', { paths: [''] }), 'empty'), /paths/);
			assert.match(err(await call(srv, 'read_multiple_files', {}), 'missing'), /paths/);
		});
	});

	describe('list_directory_with_sizes', () => {
		const byName = [
			{ name: 'big.bin', type: 'file', size: 3000 },
			{ name: 'd1', type: 'directory' },
			{ name: 'd2', type: 'directory' },
			{ name: 'fifo', type: 'other' },
			{ name: 'link', type: 'symlink' },
			{ name: 'mid.bin', type: 'file', size: 1500 },
			{ name: 'small.txt', type: 'file', size: 1 },
			{ name: 'tie-b', type: 'file', size: 1500 },
			{ name: 'zero', type: 'file', size: 0 },
		];
		const bySize = ['big.bin', 'mid.bin', 'tie-b', 'small.txt', 'zero', 'd1', 'd2', 'fifo', 'link'];

		test('by name, with sizes for files only and totals; denied entries left out', async () => {
			const r = await call(srv, 'list_directory_with_sizes', { path: 'sizes' });
			const sc = ok(r, 'by name');
			assert.deepEqual(sc, {
				path: tree.p('sizes'), sortBy: 'name', entries: byName, total: 9, files: 5,
				directories: 2, others: 2, total_size: 6001, truncated: false,
			});
			assert.equal(textOf(r), [
				'[FILE] big.bin                            2.9 KB',
				'[DIR]  d1',
				'[DIR]  d2',
				'[OTHER] fifo',
				'[LINK] link',
				'[FILE] mid.bin                            1.5 KB',
				'[FILE] small.txt                             1 B',
				'[FILE] tie-b                              1.5 KB',
				'[FILE] zero                                  0 B',
				'',
				'Total: 5 files, 2 directories, 2 others',
				'Combined size: 5.9 KB (6001 bytes)',
				'',
			].join('\n'));
			for (const hidden of ['.env', 'id_rsa', '.ssh'])
				assert.ok(!JSON.stringify(r).includes(hidden), hidden);
		});

		test('sortBy size: largest first, ties by name, then entries without a size', async () => {
			const sc = ok(await call(srv, 'list_directory_with_sizes', { path: 'sizes', sortBy: 'size' }), 'size');
			assert.deepEqual(sc.entries.map((e) => e.name), bySize);
			assert.equal(sc.sortBy, 'size');
			assert.equal(sc.total_size, 6001);
		});

		test('sortBy name explicitly is the default order', async () => {
			const sc = ok(await call(srv, 'list_directory_with_sizes', { path: 'sizes', sortBy: 'name' }), 'name');
			assert.deepEqual(sc.entries, byName);
		});

		test('offset and limit page through in the chosen order; totals stay whole', async () => {
			const seen = [];
			let offset = 0;
			for (let page = 0; page < 10; page++) {
				const r = await call(srv, 'list_directory_with_sizes',
				    { path: 'sizes', sortBy: 'size', offset, limit: 4 });
				const sc = ok(r, `page ${page}`);
				assert.equal(sc.total, 9);
				assert.equal(sc.files, 5);
				assert.equal(sc.total_size, 6001);
				seen.push(...sc.entries.map((e) => e.name));
				if (!sc.truncated) {
					assert.equal(sc.next_offset, undefined);
					break;
				}
				assert.equal(sc.next_offset, offset + 4);
				assert.ok(textOf(r).includes(`[entries ${offset + 1}-${offset + 4} of 9 shown; call `
				    + `list_directory_with_sizes again with offset=${offset + 4} and sortBy=size to continue]`),
				textOf(r));
				offset = sc.next_offset;
			}
			assert.deepEqual(seen, bySize);
			const past = ok(await call(srv, 'list_directory_with_sizes', { path: 'sizes', offset: 50 }), 'past');
			assert.deepEqual(past.entries, []);
			assert.equal(past.truncated, false);
		});

		test('a directory holding only denied entries lists as empty', async () => {
			const r = await call(srv, 'list_directory_with_sizes', { path: 'denied-only' });
			const sc = ok(r, 'denied only');
			assert.equal(sc.total, 0);
			assert.equal(sc.total_size, 0);
			assert.equal(textOf(r), '(no entries)\n\nTotal: 0 files, 0 directories\nCombined size: 0 B (0 bytes)\n');
		});

		test('the root, by relative and absolute name', async () => {
			for (const p of ['.', tree.root]) {
				const sc = ok(await call(srv, 'list_directory_with_sizes', { path: p }), p);
				const names = sc.entries.map((e) => e.name);
				assert.ok(names.includes('a.txt') && !names.includes('.env'), names.join(','));
				assert.equal(sc.entries.find((e) => e.name === 'a.txt').size, 6);
			}
		});

		test('errors: a file, a missing path, a FIFO, a bad sortBy, a denied directory', async () => {
			assert.equal(err(await call(srv, 'list_directory_with_sizes', { path: 'a.txt' }), 'file'),
			    "'a.txt': not a directory");
			assert.equal(err(await call(srv, 'list_directory_with_sizes', { path: 'nope' }), 'missing'),
			    "'nope': not found");
			err(await withTimeout(call(srv, 'list_directory_with_sizes', { path: 'fifo' }), 5000, 'fifo'), 'fifo');
			assert.match(err(await call(srv, 'list_directory_with_sizes', { path: '.', sortBy: 'mtime' }), 'sort'),
			    /sortBy/);
			assert.equal(err(await call(srv, 'list_directory_with_sizes', { path: 'sizes/.ssh' }), '.ssh'),
			    "'sizes/.ssh': denied by policy rule 'deny **/.ssh' (built in)");
		});

		test('the secret never appears anywhere the server wrote', () => {
			assert.ok(!transcript(srv).includes(secret), 'secret in a response');
			assert.ok(!srv.stderr().includes(secret), 'secret on stderr');
		});
	});
});

describe('read tools confinement (EscapeRoute)', () => {
	let base;
	let root;
	let evil;
	let secret;
	let srv;

	before(async () => {
		secret = secretToken();
		base = await makeTree({ 'allowed/ok.png': Buffer.from('89504e470d0a1a0a', 'hex') });
		root = base.p('allowed');
		evil = base.p('allowed-evil');
		await mkdir(evil);
		await chmod(evil, 0o755);
		await writeFile(`${evil}/secret`, `${secret}\n`);
		await chmod(`${evil}/secret`, 0o644);
		await mkdir(`${root}/sub`);
		await chmod(`${root}/sub`, 0o755);
		await ln(`${evil}/secret`, `${root}/abs-file`);
		await ln('../allowed-evil/secret', `${root}/rel-file`);
		await ln(evil, `${root}/abs-dir`);
		await ln('../allowed-evil', `${root}/rel-dir`);
		await ln(`/proc/self/root${evil}/secret`, `${root}/proc-link`);
		await ln(`/proc/self/root${evil}`, `${root}/proc-dir`);
		await ln('..', `${root}/dotdot`);
		srv = await startServer([root]);
	});

	after(async () => {
		await srv?.close();
		await base?.cleanup();
	});

	const escapes = () => [
		// prefix twin
		`${evil}/secret`, evil, `${root}-evil/secret`, `${root}/../allowed-evil/secret`,
		// symlinks inside the root that lead outside
		`${root}/abs-file`, `${root}/rel-file`, `${root}/abs-dir`, `${root}/rel-dir`,
		'rel-dir/secret', 'abs-dir/secret', 'rel-dir', `${root}/dotdot/allowed-evil/secret`,
		// .. traversal
		'../allowed-evil/secret', '../allowed-evil', '..', 'sub/../../allowed-evil/secret',
		// /proc magic links
		`/proc/self/root${evil}/secret`, `/proc/self/root${evil}`, `/proc/self/root${root}/ok.png`,
		`${root}/proc-link`, `${root}/proc-dir`, '/proc/self/cwd',
	];

	for (const tool of ['read_media_file', 'list_directory_with_sizes']) {
		test(`${tool} refuses every escape`, async () => {
			const failures = [];
			for (const p of escapes()) {
				const r = await call(srv, tool, { path: p });
				if (r.isError !== true)
					failures.push(`${p}: not an error: ${JSON.stringify(r).slice(0, 300)}`);
				else if (!textOf(r).startsWith(`'${p}': `))
					failures.push(`${p}: error does not name the path as given: ${textOf(r)}`);
				if (JSON.stringify(r).includes(secret) || JSON.stringify(r).includes(
				    Buffer.from(`${secret}\n`).toString('base64').slice(0, 40)))
					failures.push(`${p}: the secret leaked`);
			}
			assert.deepEqual(failures, []);
		});
	}

	test('read_multiple_files refuses every escape, file by file', async () => {
		const all = escapes();
		const failures = [];
		for (let i = 0; i < all.length; i += 8) {
			const paths = [...all.slice(i, i + 8), 'ok.png'];
			const r = await call(srv, 'read_multiple_files', { paths });
			const sc = ok(r, `batch ${i}`);
			assert.equal(sc.files.length, paths.length);
			sc.files.forEach((f, k) => {
				if (k === paths.length - 1) {
					if (f.error !== undefined || f.size !== 8)
						failures.push(`ok.png: ${JSON.stringify(f)}`);
				} else if (f.error === undefined || f.content !== undefined) {
					failures.push(`${paths[k]}: not refused: ${JSON.stringify(f)}`);
				} else if (f.path !== paths[k] || !f.error.startsWith(`'${paths[k]}': `)) {
					failures.push(`${paths[k]}: error does not name it: ${f.error}`);
				}
			});
			if (JSON.stringify(r).includes(secret))
				failures.push(`batch ${i}: the secret leaked`);
		}
		assert.deepEqual(failures, []);
	});

	test('the outside directory is not listed through a twin or a link (control: the root is)', async () => {
		const sc = ok(await call(srv, 'list_directory_with_sizes', { path: root }), 'root');
		assert.deepEqual(sc.entries.map((e) => e.name),
		    ['abs-dir', 'abs-file', 'dotdot', 'ok.png', 'proc-dir', 'proc-link', 'rel-dir', 'rel-file', 'sub']);
		// Symbolic links are not followed for their size.
		for (const e of sc.entries.filter((x) => x.name !== 'ok.png' && x.name !== 'sub'))
			assert.deepEqual(e, { name: e.name, type: 'symlink' });
		assert.equal(sc.total_size, 8);
	});

	test('the secret never appears anywhere the server wrote', () => {
		assert.ok(!transcript(srv).includes(secret), 'secret in a response');
		assert.ok(!srv.stderr().includes(secret), 'secret on stderr');
	});
});

describe('an answer that cannot be built whole under a memory limit', () => {
	let scratch;
	let srv;
	const body = 'x'.repeat(63) + '\n';

	before(async () => {
		scratch = await makeScratch('memlimit');
		await writeFile(`${scratch.root}/big.txt`, body.repeat(8 * 1024 * 1024 / 64));
		await writeFile(`${scratch.root}/small.txt`, 'small\n');
		// 16M of address space: an 8 MiB body cannot be held twice.
		const p = await scratch.policy([`allow read ${scratch.root}`,
		    'tool read_text_file limit memory 16M']);
		srv = await startServer(['--policy', p]);
	});

	after(async () => {
		await srv?.close();
		await scratch?.cleanup();
	});

	test('is an error, never a shorter answer that looks complete', async () => {
		const r = await call(srv, 'read_text_file', { path: 'big.txt', max_bytes: 9 * 1024 * 1024 });
		if (r.isError !== true) {
			// A page that says it is one (one call returns at most
			// 4 MiB), or not an answer at all.
			assert.equal(r.content[0].text.length, 4 * 1024 * 1024,
			    `a success of ${textOf(r).length} bytes: ${JSON.stringify(r.structuredContent).slice(0, 200)}`);
			assert.equal(r.structuredContent.truncated, true);
			assert.equal(r.structuredContent.next_offset, 65536);
			assert.match(r.content[1].text, /^\[truncated at 4194304 bytes, the most one call returns: /);
		} else
			assert.match(err(r, 'big'), /could not be built whole|out of memory|without a result|killed by signal/);
		// The server keeps serving, the same tool included.
		assert.equal(textOf(await call(srv, 'read_text_file', { path: 'small.txt' })).includes('small'), true);
	});
});
