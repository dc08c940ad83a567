// sections.test.mjs: a server's own section of the policy file, from a
// server outside the suite.  The test-only toolcell-hostile registers
// [hostile] (tests/hostile/hostile_policy.c) without a line of common/:
// its keywords reach its hello tool in the call's child, --check prints
// them with their origins, and a keyword it does not have is refused with
// its file and line.  To toolcell-fs, whose suite does not include
// hostile, a [hostile] header is an unknown section: refused, not skipped
// (toolcell-policy(5), SECTIONS).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { BUILD, call, makeScratch, makeTree, runServer, startServer, textOf } from './lib.mjs';

const HOSTILE = path.join(BUILD, 'tests', 'toolcell-hostile');

let T;		/* the directory served */
let S;		/* policies */

before(async () => {
	T = await makeTree({ 'a.txt': 'alpha\n' });
	S = await makeScratch('sections');
});

after(async () => {
	await T?.cleanup();
	await S?.cleanup();
});

/* A greeting no other test or default could produce. */
const word = () => `hi-${randomUUID().slice(0, 8)}`;

/* Starts toolcell-hostile with the policy |lines|, calls hello, stops it;
 * returns the result. */
async function hello(lines) {
	const srv = await startServer(['--policy', await S.policy(lines)], { server: HOSTILE });
	try {
		const r = await call(srv, 'hello', {});
		assert.notEqual(r.isError, true, `hello failed: ${textOf(r)}\n${srv.stderr()}`);
		assert.equal(r.structuredContent?.ok, true);
		return r;
	} finally {
		await srv.close();
	}
}

describe('[hostile]: a server outside the suite reads its own section', () => {
	test('its keywords reach the tool, in the call\'s child', async () => {
		const w = word();
		const r = await hello([`allow read ${T.root}`, '[fs]', 'write-sync none',
			'[hostile]', `greeting ${w}`, 'padding 1K']);
		assert.equal(r.structuredContent.greeting, w);
		assert.match(textOf(r), new RegExp(`^greeting: ${w}$`, 'm'));
		assert.equal(r.structuredContent.padding, '.'.repeat(1024));
	});

	test('without them, the tool does what it always did', async () => {
		const r = await hello([`allow read ${T.root}`]);
		assert.equal(r.structuredContent.greeting, undefined);
		assert.equal(r.structuredContent.padding, undefined);
		assert.doesNotMatch(textOf(r), /greeting/);
	});

	test('before the first header, they are read as well', async () => {
		const w = word();
		const r = await hello([`allow read ${T.root}`, `greeting ${w}`, 'padding 3']);
		assert.equal(r.structuredContent.greeting, w);
		assert.equal(r.structuredContent.padding, '...');
	});

	test('--check prints them with their origins, and names [fs] skipped', async () => {
		const w = word();
		const p = await S.policy([`allow read ${T.root}`, '[fs]', 'write-sync none',
			'[hostile]', `greeting ${w}`, 'padding 64K']);
		const r = await runServer(['--policy', p, '--check'], HOSTILE);
		assert.equal(r.stderr, '');
		assert.equal(r.status, 0);
		const out = r.stdout.split('\n');
		assert.ok(out.includes('  skipped, for other servers: [fs] (line 2)'), r.stdout);
		assert.ok(out.includes(`greeting: ${w}  (line 5)`), r.stdout);
		assert.ok(out.includes('padding: 64K  (line 6)'), r.stdout);
		assert.ok(!out.some((l) => l.startsWith('write-sync')), 'fs\'s setting is not hostile\'s');
	});

	test('--check prints their defaults', async () => {
		const r = await runServer(['--policy', await S.policy([`allow read ${T.root}`]),
			'--check'], HOSTILE);
		assert.equal(r.status, 0, r.stderr);
		const out = r.stdout.split('\n');
		assert.ok(out.includes('greeting: none  (default)'), r.stdout);
		assert.ok(out.includes('padding: 0  (default)'), r.stdout);
	});

	test('an unknown keyword, and a bad value, are refused with file:line', async () => {
		const p = await S.policy([`allow read ${T.root}`, '[hostile]', 'greting hi',
			'padding 1M', 'greeting a b']);
		const r = await runServer(['--policy', p, '--check'], HOSTILE);
		assert.notEqual(r.status, 0);
		assert.equal(r.stdout, '');
		assert.match(r.stderr, new RegExp(`${p}:3: unknown keyword 'greting' \\(did you mean 'greeting'\\?\\)`));
		assert.match(r.stderr, new RegExp(`${p}:4: padding: '1M' is out of range: 0 to 64K`));
		assert.match(r.stderr, new RegExp(`${p}:5: greeting: `));
		assert.match(r.stderr, /3 errors/);
	});

	test('a setting is given once, at the top or in the section', async () => {
		const p = await S.policy([`allow read ${T.root}`, 'greeting one', '[hostile]',
			'greeting two']);
		const r = await runServer(['--policy', p, '--check'], HOSTILE);
		assert.notEqual(r.status, 0);
		assert.match(r.stderr, new RegExp(`${p}:4: greeting: already set at line 2`));
	});

	test('its own name counts as known: an unknown header lists it', async () => {
		const p = await S.policy([`allow read ${T.root}`, '[hostle]', 'greeting hi']);
		const r = await runServer(['--policy', p, '--check'], HOSTILE);
		assert.notEqual(r.status, 0);
		assert.match(r.stderr, new RegExp(`${p}:2: unknown section \\[hostle\\] ` +
		    '\\(known: \\[fs\\], \\[shell\\], \\[sqlite\\], \\[hostile\\]\\)'));
	});
});

describe('toolcell-fs and a section of a server outside the suite', () => {
	test('[hostile] is an unknown section: refused, not skipped', async () => {
		const p = await S.policy([`allow read ${T.root}`, '[hostile]', 'greeting hi']);
		const r = await runServer(['--policy', p, '--check']);
		assert.notEqual(r.status, 0);
		assert.equal(r.stdout, '');
		assert.match(r.stderr, new RegExp(`${p}:2: unknown section \\[hostile\\] ` +
		    '\\(known: \\[fs\\], \\[shell\\], \\[sqlite\\]\\)'));
		// It does not start from that file either.
		const s = await runServer(['--policy', p]);
		assert.notEqual(s.status, 0);
		assert.match(s.stderr, /unknown section \[hostile\]/);
	});

	test('hostile\'s keywords are not toolcell-fs\'s, at the top or in [fs]', async () => {
		const p = await S.policy([`allow read ${T.root}`, 'greeting hi', '[fs]', 'padding 1K']);
		const r = await runServer(['--policy', p, '--check']);
		assert.notEqual(r.status, 0);
		assert.match(r.stderr, new RegExp(`${p}:2: unknown keyword 'greeting'`));
		assert.match(r.stderr, new RegExp(`${p}:4: unknown keyword 'padding'`));
	});
});
