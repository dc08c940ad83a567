// install.test.mjs: `make install` puts what README.md's table says where
// it says: `make install DESTDIR=TMP PREFIX=/usr/local` into a temp dir,
// then each row of the table read from README.md -- the binaries in
// PREFIX/bin (executable), the man pages in share/man/man1 and man5, the
// consent hooks in share/toolcell/hooks (executable), the example
// policies in share/toolcell/examples -- and nothing else.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { BUILD, REPO } from './lib.mjs';

const PREFIX = '/usr/local';

/* README's install table: {what, where} for each row. */
function table() {
	const lines = readFileSync(path.join(REPO, 'README.md'), 'utf8').split('\n');
	const head = lines.findIndex((l) => /^\|\s*what\s*\|\s*where\s*\|$/.test(l));
	assert.ok(head >= 0, 'README.md: no "| what | where |" table');
	const rows = [];
	for (let i = head + 2; i < lines.length && lines[i].startsWith('|'); i++) {
		const [what, where] = lines[i].split('|').slice(1, 3).map((c) => c.trim());
		rows.push({ what, where });
	}
	return rows;
}

let dest;
let root;	// DESTDIR + PREFIX

before(async () => {
	dest = await fsp.mkdtemp(path.join(os.tmpdir(), 'toolcell-install-'));
	root = path.join(dest, PREFIX);
	const r = spawnSync('make', ['-s', '-C', REPO, 'install', `BUILD=${path.relative(REPO, BUILD)}`,
	    `DESTDIR=${dest}`, `PREFIX=${PREFIX}`], { encoding: 'utf8', timeout: 600_000 });
	if (r.error)
		throw r.error;
	assert.equal(r.status, 0, `make install failed:\n${r.stdout}${r.stderr}`);
});

after(async () => {
	if (dest)
		await fsp.rm(dest, { recursive: true, force: true });
});

/* The names in |dir| beneath the install root, sorted. */
const names = (dir) => readdirSync(path.join(root, dir)).sort();

function executable(file) {
	const st = statSync(file);
	assert.ok(st.isFile(), `${file}: not a file`);
	assert.equal(st.mode & 0o777, 0o755, `${file}: mode ${(st.mode & 0o777).toString(8)}`);
}

describe('make install DESTDIR=TMP', () => {
	const rows = table();
	const row = (re) => {
		const r = rows.find((x) => re.test(x.where));
		assert.ok(r, `README.md's table has no row for ${re}`);
		return r;
	};
	const ticked = (s) => [...s.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

	test('the binaries in PREFIX/bin, executable, and no others', () => {
		const bins = ticked(row(/^`PREFIX\/bin`$/).what);
		assert.ok(bins.includes('toolcell-fs') && bins.includes('toolcell-shell'), bins.join(' '));
		assert.deepEqual(names('bin'), [...bins].sort());
		for (const b of bins)
			executable(path.join(root, 'bin', b));
	});

	test('the man pages in share/man/man1 and man5, as the sources are', () => {
		const pages = [...row(/man1/).what.matchAll(/([a-z-]+)\(([15])\)/g)]
		    .map((m) => ({ name: m[1], sec: m[2] }));
		assert.ok(pages.length >= 4, row(/man1/).what);
		for (const sec of ['1', '5'])
			assert.deepEqual(names(`share/man/man${sec}`),
			    pages.filter((p) => p.sec === sec).map((p) => `${p.name}.${sec}`).sort());
		for (const p of pages) {
			const src = p.name === 'toolcell-audit' ? 'audit/toolcell-audit.1' :
			    p.name === 'toolcell-policy' ? 'servers/fs/toolcell-policy.5' :
			    `servers/${p.name.replace(/^toolcell-/, '')}/${p.name}.${p.sec}`;
			assert.equal(readFileSync(path.join(root, `share/man/man${p.sec}`, `${p.name}.${p.sec}`),
			    'utf8'), readFileSync(path.join(REPO, src), 'utf8'), src);
		}
	});

	test('the consent hooks in share/toolcell/hooks, executable', () => {
		const hooks = ticked(row(/hooks`$/).what);
		assert.deepEqual(hooks.sort(), ['allow-read-only', 'ask-tty', 'desktop']);
		assert.deepEqual(names('share/toolcell/hooks'), hooks);
		for (const h of hooks)
			executable(path.join(root, 'share/toolcell/hooks', h));
	});

	test('every example policy in share/toolcell/examples', () => {
		row(/examples`$/);
		const ex = readdirSync(path.join(REPO, 'policy/examples'))
		    .filter((f) => f.endsWith('.policy')).sort();
		assert.ok(ex.includes('shell-readonly.policy'), ex.join(' '));
		assert.deepEqual(names('share/toolcell/examples'), ex);
		for (const f of ex) {
			const st = statSync(path.join(root, 'share/toolcell/examples', f));
			assert.equal(st.mode & 0o777, 0o644, f);
		}
	});

	test('nothing outside PREFIX', () => {
		assert.deepEqual(readdirSync(dest), [PREFIX.split('/')[1]]);
		assert.deepEqual(names('.'), ['bin', 'share']);
		assert.deepEqual(names('share'), ['man', 'toolcell']);
	});
});
