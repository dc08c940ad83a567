// deny.test.mjs: deny rules of a policy file (toolcell-policy(5)), enforced
// by the real toolcell-fs in its confined children and seen through the
// official MCP client: reads refused by name, through symlinks to denied
// files and directories and after "..", with a message naming the rule;
// listings that leave denied entries out, counts and pages included;
// write-only rules that do not refuse reads; and no denied byte anywhere
// in what the server sent.
//
// With TOOLCELL_AS=nobody the server runs as nobody: makeTree() makes
// everything 0755/0644, and the policy lives in its own 0755 temp dir.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	call, dir, entryName, makeTree, secretToken, startServer, symlink, textOf,
	transcript,
} from './lib.mjs';

/* Every denied file holds one of these; none may reach the client. */
const SECRETS = [];
function secret() {
	const s = secretToken();
	SECRETS.push(s);
	return `${s}\n`;
}

/* Asserts |r| is a tool error; returns its text. */
function err(r, what) {
	assert.equal(r.isError, true, `${what}: expected isError, got ${JSON.stringify(r)}`);
	assert.equal(r.structuredContent, undefined, `${what}: error with structuredContent`);
	return textOf(r);
}

/* Asserts |r| succeeded; returns its structuredContent. */
function ok(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	return r.structuredContent;
}

/* Writes a 0644 policy file into a fresh 0755 temp dir; returns its path. */
async function writePolicy(lines) {
	const d = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-deny-'));
	await fsp.chmod(d, 0o755);
	const p = path.join(d, 'deny.policy');
	await fsp.writeFile(p, lines.join('\n') + '\n');
	await fsp.chmod(p, 0o644);
	return p;
}

describe('deny rules', () => {
	let tree;
	let srv;
	let policyFile;

	before(async () => {
		const page = {};
		for (let i = 0; i < 10; i++)
			page[`page/f${i}`] = `${i}\n`;
		page['page/f3.secret'] = secret();
		page['page/f7.secret'] = secret();
		page['page/.env'] = secret();
		tree = await makeTree({
			'a.txt': 'alpha\n',
			'.env': secret(),
			'sub/.env': secret(),
			'sub/inner.txt': 'inner\n',
			'.ssh/authorized_keys': secret(),
			'notes': symlink('.env'),
			'cfg': symlink('.ssh'),
			'sub/up': symlink('../.env'),
			'private/p.txt': secret(),
			'sub/private/q.txt': secret(),
			'pl': symlink('private'),
			'drafts/d.txt': 'draft\n',
			'abs-denied/x.txt': secret(),
			'k.secret': secret(),
			'mixed/a.txt': 'a\n',
			'mixed/c.txt': 'c\n',
			'mixed/.env': secret(),
			'mixed/b.secret': secret(),
			'mixed/private': dir(),
			'only-denied/.env': secret(),
			...page,
		});
		policyFile = await writePolicy([
			'# deny rules, end to end',			// 1
			`allow read ${tree.root}`,			// 2
			'deny **/private',				// 3
			'deny write drafts',				// 4
			`deny ${tree.root}/abs-denied`,			// 5
			'deny **/*.secret',				// 6
		]);
		srv = await startServer(['--policy', policyFile]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
		if (policyFile)
			await fsp.rm(path.dirname(policyFile), { recursive: true, force: true });
	});

	/* Asserts that every read tool refuses |p| with exactly |msg|. */
	async function refused(p, msg) {
		for (const tool of ['read_text_file', 'read_file', 'get_file_info']) {
			const t = err(await call(srv, tool, { path: p }), `${tool} ${p}`);
			assert.equal(t, msg, `${tool} ${p}`);
		}
	}

	test('built-in rules refuse secrets by name', async () => {
		await refused('.env', "'.env': denied by policy rule 'deny **/.env' (built in)");
		await refused('sub/.env', "'sub/.env': denied by policy rule 'deny **/.env' (built in)");
		await refused(tree.p('sub/.env'),
		    `'${tree.p('sub/.env')}': denied by policy rule 'deny **/.env' (built in)`);
		await refused('.ssh/authorized_keys',
		    "'.ssh/authorized_keys': denied by policy rule 'deny **/.ssh' (built in)");
		await refused('missing/.env',
		    "'missing/.env': denied by policy rule 'deny **/.env' (built in)");
	});

	test('the policy\'s rules name their line', async () => {
		await refused('private/p.txt',
		    "'private/p.txt': denied by policy rule 'deny **/private' (line 3)");
		await refused('sub/private/q.txt',
		    "'sub/private/q.txt': denied by policy rule 'deny **/private' (line 3)");
		await refused('k.secret', "'k.secret': denied by policy rule 'deny **/*.secret' (line 6)");
		await refused('abs-denied/x.txt',
		    `'abs-denied/x.txt': denied by policy rule 'deny ${tree.root}/abs-denied' (line 5)`);
		await refused(tree.p('abs-denied/x.txt'),
		    `'${tree.p('abs-denied/x.txt')}': denied by policy rule 'deny ${tree.root}/abs-denied' (line 5)`);
	});

	test('symlinks to denied files and directories are refused', async () => {
		await refused('notes', "'notes': denied by policy rule 'deny **/.env' (built in)");
		await refused('sub/up', "'sub/up': denied by policy rule 'deny **/.env' (built in)");
		await refused('cfg/authorized_keys',
		    "'cfg/authorized_keys': denied by policy rule 'deny **/.ssh' (built in)");
		await refused('cfg', "'cfg': denied by policy rule 'deny **/.ssh' (built in)");
		await refused('pl/p.txt', "'pl/p.txt': denied by policy rule 'deny **/private' (line 3)");
		const t = err(await call(srv, 'list_directory', { path: 'cfg' }), 'list cfg');
		assert.equal(t, "'cfg': denied by policy rule 'deny **/.ssh' (built in)");
	});

	test('".." forms are refused', async () => {
		for (const p of ['sub/../.env', `${tree.root}/sub/../.env`, './sub/../sub/.env',
		    'sub/../cfg/../.ssh/authorized_keys']) {
			const t = err(await call(srv, 'read_text_file', { path: p }), p);
			assert.match(t, /: denied by policy rule 'deny \*\*\/\.(env|ssh)' \(built in\)$/, p);
			assert.ok(t.startsWith(`'${p}'`), `the message names the path as given: ${t}`);
		}
	});

	test('denied directories cannot be listed', async () => {
		for (const [p, rule] of [['.ssh', "'deny **/.ssh' (built in)"],
		    ['private', "'deny **/private' (line 3)"], ['pl', "'deny **/private' (line 3)"]]) {
			const t = err(await call(srv, 'list_directory', { path: p }), p);
			assert.equal(t, `'${p}': denied by policy rule ${rule}`);
		}
	});

	test('what is not denied stays readable', async () => {
		for (const [p, want] of [['a.txt', 'alpha\n'], ['sub/inner.txt', 'inner\n'],
		    ['drafts/d.txt', 'draft\n']]) {
			const sc = ok(await call(srv, 'read_text_file', { path: p }), p);
			assert.equal(sc.content, want, p);
		}
		ok(await call(srv, 'get_file_info', { path: tree.root }), 'the root itself');
		ok(await call(srv, 'get_file_info', { path: 'drafts' }), 'a write-denied directory');
		const dirs = ok(await call(srv, 'list_allowed_directories', {}), 'roots');
		assert.deepEqual(dirs.directories, [{ path: tree.root, access: 'read-only' }]);
	});

	test('listings leave denied entries out and do not count them', async () => {
		const sc = ok(await call(srv, 'list_directory', { path: '.' }), 'root');
		const names = sc.entries.map(entryName);
		assert.deepEqual(names, ['a.txt', 'cfg', 'drafts', 'mixed', 'notes', 'only-denied',
		    'page', 'pl', 'sub']);
		assert.equal(sc.total, names.length);
		assert.equal(sc.truncated, false);

		const m = ok(await call(srv, 'list_directory', { path: 'mixed' }), 'mixed');
		assert.deepEqual(m.entries, ['a.txt', 'c.txt']);
		assert.equal(m.total, 2);
		const t = textOf(await call(srv, 'list_directory', { path: 'mixed' }));
		assert.equal(t, '[FILE] a.txt\n[FILE] c.txt\n');

		const o = await call(srv, 'list_directory', { path: 'only-denied' });
		assert.deepEqual(ok(o, 'only-denied').entries, []);
		assert.equal(o.structuredContent.total, 0);
		assert.equal(textOf(o), '(no entries)\n');
	});

	test('pages of a listing are those of the directory without its denied entries', async () => {
		const seen = [];
		let offset = 0;
		for (let i = 0; i < 5; i++) {
			const sc = ok(await call(srv, 'list_directory', { path: 'page', offset, limit: 4 }),
			    `page at ${offset}`);
			assert.equal(sc.total, 10, 'total counts only what is listed');
			seen.push(...sc.entries.map(entryName));
			if (sc.next_offset === undefined)
				break;
			offset = sc.next_offset;
		}
		assert.deepEqual(seen, Array.from({ length: 10 }, (_, i) => `f${i}`));
		const t = textOf(await call(srv, 'list_directory', { path: 'page', limit: 4 }));
		assert.match(t, /\[entries 1-4 of 10 shown; call list_directory again with offset=4/);
	});

	test('no denied byte reached the client', () => {
		const all = transcript(srv);
		for (const s of SECRETS)
			assert.ok(!all.includes(s), `a secret leaked: ${s}`);
		for (const name of ['"authorized_keys"', '"k.secret"', '"b.secret"', '"f3.secret"', '"x.txt"',
		    '"p.txt"', '"q.txt"'])
			assert.ok(!all.includes(name), `a denied name was listed: ${name}`);
	});
});

describe('default-deny off', () => {
	test('without the built-in rules, .env is served and listed', async () => {
		const tree = await makeTree({ '.env': 'plain\n', 'a.txt': 'alpha\n' });
		const p = await writePolicy([`allow read ${tree.root}`, 'default-deny off']);
		const srv = await startServer(['--policy', p]);
		try {
			const sc = ok(await call(srv, 'read_text_file', { path: '.env' }), '.env');
			assert.equal(sc.content, 'plain\n');
			const l = ok(await call(srv, 'list_directory', { path: '.' }), 'list');
			assert.deepEqual(l.entries.map(entryName), ['.env', 'a.txt']);
		} finally {
			await srv.close();
			await tree.cleanup();
			await fsp.rm(path.dirname(p), { recursive: true, force: true });
		}
	});
});
