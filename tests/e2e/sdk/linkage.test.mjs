// linkage.test.mjs: each binary links only the libraries it uses.  The
// Makefile gives every binary common/'s libraries and each server its own
// (servers/NAME/deps.mk): toolcell-fs takes PCRE2 but not SQLite,
// toolcell-sqlite SQLite but not PCRE2, and the other binaries (toolcell-
// shell among them) take neither, so a library of one server never loads
// into another.  Read from the binaries' dynamic
// sections (readelf -d), as the loader sees them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { BUILD, SERVER } from './lib.mjs';

/* The NEEDED entries of |bin|, or null without readelf. */
function needed(bin) {
	const r = spawnSync('readelf', ['-d', bin], { encoding: 'utf8' });
	if (r.error?.code === 'ENOENT')
		return null;
	assert.equal(r.status, 0, `readelf -d ${bin}: ${r.stderr}`);
	return [...r.stdout.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
}

/* [binary, libraries it must not load] */
const BINARIES = [
	[SERVER, [/^libsqlite3\b/]],
	[path.join(BUILD, 'toolcell-shell'), [/^libsqlite3\b/, /^libpcre2/]],
	[path.join(BUILD, 'toolcell-sqlite'), [/^libpcre2/]],
	[path.join(BUILD, 'toolcell-audit'), [/^libsqlite3\b/, /^libpcre2/]],
	[path.join(BUILD, 'tests', 'toolcell-hostile'), [/^libsqlite3\b/, /^libpcre2/]],
];

describe('libraries', () => {
	for (const [bin, banned] of BINARIES) {
		test(`${path.basename(bin)} loads only what it uses`, (t) => {
			if (!existsSync(bin))
				throw new Error(`${bin} does not exist: run make first (or set BUILD)`);
			const libs = needed(bin);
			if (libs === null) {
				t.skip('readelf is not installed');
				return;
			}
			assert.ok(libs.some((l) => l.startsWith('libc.')), `no libc among ${libs}: not a dynamic binary?`);
			for (const re of banned)
				assert.equal(libs.find((l) => re.test(l)), undefined,
				    `${path.basename(bin)} links ${libs.join(', ')}`);
		});
	}
	test('toolcell-fs loads PCRE2, its own library', (t) => {
		const libs = needed(SERVER);
		if (libs === null) {
			t.skip('readelf is not installed');
			return;
		}
		assert.ok(libs.some((l) => l.startsWith('libpcre2-8')), `toolcell-fs links ${libs.join(', ')}`);
	});
	test('toolcell-sqlite loads SQLite, its own library', (t) => {
		const libs = needed(path.join(BUILD, 'toolcell-sqlite'));
		if (libs === null) {
			t.skip('readelf is not installed');
			return;
		}
		assert.ok(libs.some((l) => l.startsWith('libsqlite3')), `toolcell-sqlite links ${libs.join(', ')}`);
	});
});
