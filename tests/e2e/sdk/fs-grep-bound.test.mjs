// fs-grep-bound.test.mjs: search_file_contents with regular expressions
// that glibc's regexec() would take minutes on, through the official MCP
// client.  The search is PCRE2 without JIT, each line's match bounded in
// steps, depth, heap and time: it must answer within its time budget with
// what it found, give up a line past a bound (and say so), refuse what does
// not compile with PCRE2's message, and take the syntax models write.
//
// The server runs with a 5 s deadline: a search that could not be stopped
// within a line would be killed at it, with nothing found.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { call, makeTree, startServer, textOf } from './lib.mjs';

const DEADLINE = 5000;

/* Asserts |r| succeeded; returns its structuredContent. */
function ok(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	return r.structuredContent;
}

/* Asserts |r| is a tool error; returns its text. */
function err(r, what) {
	assert.equal(r.isError, true, `${what}: expected isError, got ${JSON.stringify(r).slice(0, 500)}`);
	return textOf(r);
}

/* Every text block of |r|: the matches, then the note on them. */
const note = (r) => r.content.map((c) => c.text).join('\n');

/* "file:line:column" of each match, the file relative to |root|. */
const where = (sc, root) => sc.matches.map((m) => `${m.file.slice(root.length + 1)}:${m.line}:${m.column}`);

/* |n| bytes of 'a' and 'b', the same every run. */
function ab(n) {
	let x = 1;
	let s = '';
	for (let i = 0; i < n; i++) {
		x = (x * 1103515245 + 12345) % 2147483648;
		s += (x >> 16) & 1 ? 'a' : 'b';
	}
	return s;
}

describe('search_file_contents: regular expressions within bounds', () => {
	let tree;
	let srv;

	before(async () => {
		tree = await makeTree({
			// glibc: 427 s for (a*)*\1b on 512 bytes.
			'backref/a.txt': `${'a'.repeat(512)}!b\nab NEEDLE\n`,
			// glibc: about 20 s per KiB of .*a.{300}c; here the long
			// repeat makes each step cost up to 30,000 bytes.
			'costly/a.txt': 'NEEDLE first\n',
			'costly/b.txt': `${ab(1024)}c\n${ab(65000)}c\n`,
			'slow/slow.txt': `${'a'.repeat(65000)}!b\nab NEEDLE\n`,
			'many/many.txt': `${'a'.repeat(65000)}!b\n`.repeat(100),
			'short/short.txt': `${'a'.repeat(200)}!b\n`.repeat(2000),
			'feat/feat.txt': 'int main(void) {\nfoo_bar = 42;\nFooBar baz\nx := a1b2c3\n\tindented\n',
		});
		srv = await startServer(['-t', String(DEADLINE), tree.root]);
	});

	after(async () => {
		await srv?.close();
		await tree?.cleanup();
	});

	/*
	 * Searches |dir| of the tree.  The bound is proven without a clock:
	 * a search that ran into the server's deadline (DEADLINE) would come
	 * back as an error, not as a result with slow_lines counted.
	 */
	async function search(dir, args) {
		return call(srv, 'search_file_contents', { path: tree.p(dir), regex: true, ...args },
		    { timeout: 4 * DEADLINE });
	}

	test('a back-reference under nested loops is given up on its line, and what follows is found', async () => {
		const r = await search('backref', { pattern: '(a*)*\\1b|NEEDLE' });
		const sc = ok(r, 'backref');
		assert.deepEqual(where(sc, tree.p('backref')), ['a.txt:2:1']);
		assert.equal(sc.slow_lines, 1);
		assert.equal(sc.truncated, false);
		assert.match(note(r), /; 1 line given up: the regular expression took too long on it \(it may match there; a simpler pattern, or a literal one, searches it\)/);
	});

	test('a costly pattern on long lines does not run into the deadline', async () => {
		const r = await search('costly', { pattern: 'NEEDLE|.*a.{300}c' });
		const sc = ok(r, 'costly');
		assert.deepEqual(where(sc, tree.p('costly')).slice(0, 1), ['a.txt:1:1']);
		assert.equal(sc.truncated, false);
		assert.equal(sc.files_scanned, 2);
		// A long counted repeat: one step of the match, but up to
		// 30,000 bytes of work; the line's time bound gives it up.
		const r2 = await search('costly', { pattern: '.*a.{30000}c' });
		const sc2 = ok(r2, 'repeat');
		assert.equal(sc2.slow_lines, 1);
	});

	test('a line that takes too many steps is given up, counted, and the search goes on', async () => {
		const r = await search('slow', { pattern: '(a{1,100}){1,50}b|NEEDLE' });
		const sc = ok(r, 'slow');
		assert.deepEqual(where(sc, tree.p('slow')), ['slow.txt:2:1']);
		assert.equal(sc.slow_lines, 1);
		assert.equal(sc.truncated, false);
	});

	test('the time budget holds: a hundred such lines are cut short by it', async () => {
		const r = await search('many', { pattern: '(a*)*\\1b', timeBudget: 300 });
		const sc = ok(r, 'many');
		assert.deepEqual(sc.matches, []);
		assert.equal(sc.truncated, true);
		assert.deepEqual(sc.truncated_by, ['timeBudget']);
		assert.ok(sc.slow_lines >= 1 && sc.slow_lines < 100, `${sc.slow_lines} lines given up`);
		assert.match(note(r), /stopped when the time budget \(300 ms\) ran out/);
	});

	test('and so it does over short slow lines, thousands in one read', async () => {
		const r = await search('short', { pattern: '(a|aa)*\\1b', timeBudget: 300 });
		const sc = ok(r, 'short');
		assert.deepEqual(sc.matches, []);
		assert.deepEqual(sc.truncated_by, ['timeBudget']);
		assert.ok(sc.slow_lines >= 1 && sc.slow_lines < 2000, `${sc.slow_lines} lines given up`);
	});

	test('what does not compile, or compiles too large, is an error with PCRE2\'s message', async () => {
		// Each item carries a callout (the time bound), so 5000 copies
		// are past PCRE2's size for compiled code: refused at once.
		let r = await search('feat', { pattern: '(a?){5000}' });
		assert.equal(err(r, 'copies'), "pattern '(a?){5000}': not a valid regular expression (PCRE2 syntax): "
		    + 'regular expression is too large at offset 10');
		r = await search('feat', { pattern: '((a{1,100}){1,100}){1,100}' });
		assert.equal(err(r, 'big'), "pattern '((a{1,100}){1,100}){1,100}': not a valid regular expression "
		    + '(PCRE2 syntax): regular expression is too large at offset 26');
		const deep = `${'('.repeat(300)}a${')'.repeat(300)}`;
		r = await search('feat', { pattern: deep });
		assert.match(err(r, 'deep'), /: parentheses are too deeply nested at offset 25\d$/);
		r = await search('feat', { pattern: 'a(b' });
		assert.equal(err(r, 'syntax'), "pattern 'a(b': not a valid regular expression (PCRE2 syntax): "
		    + 'missing closing parenthesis at offset 3');
		r = await search('feat', { pattern: 'x{2,1}' });
		assert.equal(err(r, 'interval'), "pattern 'x{2,1}': not a valid regular expression (PCRE2 syntax): "
		    + 'numbers out of order in {} quantifier at offset 5');
		r = await search('feat', { pattern: '[[:nope:]]' });
		assert.equal(err(r, 'class'), "pattern '[[:nope:]]': not a valid regular expression (PCRE2 syntax): "
		    + 'unknown POSIX class name at offset 3');
	});

	test('the syntax models write: \\d, \\s, \\b, lazy repeats, (?i), classes, anchors, intervals', async () => {
		const cases = [
			[{ pattern: '\\bmain\\b' }, ['feat.txt:1:5']],
			[{ pattern: '\\d+;$' }, ['feat.txt:2:11']],
			[{ pattern: '^\\s+\\w+$' }, ['feat.txt:5:1']],
			[{ pattern: '^[[:space:]]+[a-z]+$' }, ['feat.txt:5:1']],
			[{ pattern: '[0-9]{2};$' }, ['feat.txt:2:11']],
			[{ pattern: 'f.*?r' }, ['feat.txt:2:1']],
			[{ pattern: '(?i)foobar' }, ['feat.txt:3:1']],
			[{ pattern: 'foobar', ignoreCase: true }, ['feat.txt:3:1']],
			[{ pattern: '[^a-z ]BAR', ignoreCase: true }, ['feat.txt:2:4']],
			[{ pattern: '([a-z][0-9]){3}' }, ['feat.txt:4:6']],
			[{ pattern: 'b\\w+|\\(void\\)' }, ['feat.txt:1:9', 'feat.txt:2:5', 'feat.txt:3:8', 'feat.txt:4:8']],
			[{ pattern: '(^|=) ?4' }, ['feat.txt:2:9']],
		];
		for (const [args, want] of cases) {
			const r = await search('feat', args);
			assert.deepEqual(where(ok(r, args.pattern), tree.p('feat')), want, JSON.stringify(args));
		}
	});
});
