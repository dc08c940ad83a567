// subjects.test.mjs: a call's typed subjects (policy/subject.h), as the
// hostile test server's run_thing (program, arguments, working directory,
// environment names) and sql_thing (database, statement kind) give them,
// the way toolcell-shell and toolcell-sqlite will: typed consent rules ask
// only for the calls whose subjects they match; the consent hook, the
// question put to a person and the audit log name them; toolcell-fs's
// paths are subjects too, and its hook input and records are as before
// but for the added "subjects".
//
// With TOOLCELL_AS=nobody the servers, and so the hooks, run as nobody:
// what the hooks and the logs write goes to directories it owns.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
	BUILD, call, logRecords, makeScratch, makeTree, runServer, startServer, textOf,
} from './lib.mjs';

const HOSTILE = path.join(BUILD, 'tests', 'toolcell-hostile');
const AUDIT = path.join(BUILD, 'toolcell-audit');
const CLIENT = { name: 'toolcell-subjects', version: '1.2.3' };

let tree;
const base = await makeScratch('subjects');
const { policy, ownedDir } = base;

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n', 'sub/c.txt': 'charlie\n', 'no/n.txt': 'n\n' });
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

/* A consent hook that appends its input, one line a call, to |out|/in and allows. */
async function recordingHook(out) {
	const p = base.unique('hook', '.sh');
	await fsp.writeFile(p, `#!/bin/sh\ncat >> "${out}/in"\necho >> "${out}/in"\nexit 0\n`);
	await fsp.chmod(p, 0o755);
	return p;
}

/* The inputs the hook of recordingHook(|out|) was given, parsed. */
async function hookInputs(out) {
	try {
		return (await fsp.readFile(path.join(out, 'in'), 'utf8')).split('\n')
		    .filter((l) => l !== '').map((l) => JSON.parse(l));
	} catch (e) {
		if (e.code === 'ENOENT')
			return [];
		throw e;
	}
}

function start(args, opts = {}) {
	return startServer(args, { server: opts.server ?? HOSTILE, clientInfo: CLIENT,
	    capabilities: opts.elicit ? { elicitation: {} } : {},
	    handlers: opts.elicit ? [[ElicitRequestSchema, opts.elicit]] : [] });
}

function ran(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	assert.equal(r.structuredContent.ok, true, what);
}

function refused(r, what) {
	assert.equal(r.isError, true, `${what}: expected a refusal, got ${JSON.stringify(r)}`);
	return textOf(r);
}

const git = (argv, extra = {}) => ({ program: '/usr/bin/git', argv, ...extra });

describe('typed consent rules', () => {
	test('a program rule asks for that program only; the hook gets the subjects', async () => {
		const out = await ownedDir();
		const h = await recordingHook(out);
		const p = await policy([`allow read ${tree.root}`, 'consent run_thing program /usr/bin/rm dd',
		    `consent-hook ${h}`]);
		const srv = await start(['--policy', p]);
		try {
			ran(await call(srv, 'run_thing', { program: '/usr/bin/ls', argv: ['-l'] }), 'ls');
			ran(await call(srv, 'sql_thing', { database: 'main', sql: 'delete from t' }), 'sql');
			assert.equal((await hookInputs(out)).length, 0, 'asked about a call no rule covers');
			ran(await call(srv, 'run_thing', { program: '/usr/bin/rm', argv: ['-f', 'x y'],
			    cwd: 'sub/../sub', env: ['LANG'] }), 'rm');
			// By its file name: dd wherever it is.
			ran(await call(srv, 'run_thing', { program: '/opt/bin/dd' }), 'dd');
			const ins = await hookInputs(out);
			assert.equal(ins.length, 2);
			assert.equal(ins[0].tool, 'run_thing');
			assert.equal(ins[0].rule, 'consent run_thing program /usr/bin/rm dd (line 2)');
			assert.deepEqual(ins[0].paths, []);
			assert.deepEqual(ins[0].subjects, [
				{ kind: 'program', value: '/usr/bin/rm', access: 'execute' },
				{ kind: 'arg', value: '-f' },
				{ kind: 'arg', value: 'x y' },
				{ kind: 'cwd', value: tree.p('sub') },
				{ kind: 'env', value: 'LANG' },
			]);
			assert.deepEqual(ins[1].subjects, [{ kind: 'program', value: '/opt/bin/dd', access: 'execute' }]);
		} finally {
			await srv.close();
		}
	});

	test('kinds on one line must all match: git push asks, git status and rm push do not', async () => {
		const out = await ownedDir();
		const h = await recordingHook(out);
		const p = await policy([`allow read ${tree.root}`, 'consent run_thing program git arg push',
		    `consent run_thing cwd no/**`, `consent-hook ${h}`]);
		const srv = await start(['--policy', p]);
		try {
			ran(await call(srv, 'run_thing', git(['status'])), 'git status');
			ran(await call(srv, 'run_thing', { program: '/usr/bin/rm', argv: ['push'] }), 'rm push');
			ran(await call(srv, 'run_thing', git(['push'], { cwd: 'sub' })), 'git push');
			// A cwd pattern sees the directory as resolved, by either root spelling.
			ran(await call(srv, 'run_thing', { program: '/bin/true', cwd: 'sub/../no' }), 'in no');
			ran(await call(srv, 'run_thing', { program: '/bin/true', cwd: tree.p('sub') }), 'in sub');
			const ins = await hookInputs(out);
			assert.deepEqual(ins.map((i) => i.rule), ['consent run_thing program git arg push (line 2)',
			    'consent run_thing cwd no/** (line 3)']);
			assert.deepEqual(ins[1].subjects, [{ kind: 'program', value: '/bin/true', access: 'execute' },
			    { kind: 'cwd', value: tree.p('no') }]);
		} finally {
			await srv.close();
		}
	});

	test('a statement rule asks for writes and schema changes, not for reads', async () => {
		const out = await ownedDir();
		const h = await recordingHook(out);
		const p = await policy([`allow read ${tree.root}`, 'consent sql_thing statement write schema',
		    'consent sql_thing database prod* statement read', `consent-hook ${h}`]);
		const srv = await start(['--policy', p]);
		try {
			ran(await call(srv, 'sql_thing', { database: 'main', sql: 'select 1' }), 'select');
			assert.equal((await hookInputs(out)).length, 0, 'a read was asked about');
			ran(await call(srv, 'sql_thing', { database: 'main', sql: 'insert into t values (1)' }), 'insert');
			ran(await call(srv, 'sql_thing', { database: 'main', sql: 'CREATE TABLE u (x)' }), 'create');
			ran(await call(srv, 'sql_thing', { database: 'production', sql: 'select 2' }), 'prod read');
			ran(await call(srv, 'run_thing', { program: '/usr/bin/sqlite3' }), 'run_thing');
			const ins = await hookInputs(out);
			assert.deepEqual(ins.map((i) => [i.rule, i.subjects]), [
				['consent sql_thing statement write schema (line 2)',
				    [{ kind: 'database', value: 'main', access: 'write' },
				    { kind: 'statement', value: 'write' }]],
				['consent sql_thing statement write schema (line 2)',
				    [{ kind: 'database', value: 'main', access: 'write' },
				    { kind: 'statement', value: 'schema' }]],
				['consent sql_thing database prod* statement read (line 3)',
				    [{ kind: 'database', value: 'production', access: 'read' },
				    { kind: 'statement', value: 'read' }]],
			]);
		} finally {
			await srv.close();
		}
	});

	test('the question names the program, its arguments, where and what it sets; or what a statement does', async () => {
		const asked = [];
		const elicit = async (req) => {
			asked.push(req.params.message);
			return { action: 'decline' };
		};
		const p = await policy([`allow read ${tree.root}`, 'consent run_thing program git',
		    'consent sql_thing statement write']);
		const srv = await start(['--policy', p], { elicit });
		const many = Array.from({ length: 10 }, (_, i) => `a${i}`);
		try {
			const t = refused(await call(srv, 'run_thing', git(['push', '--force', 'a"b'],
			    { cwd: 'sub', env: ['GIT_DIR'] })), 'git push');
			assert.equal(t, 'The call was not run: the user declined it. (Policy rule '
			    + '\'consent run_thing program git (line 2)\' asks a person before this call.)');
			refused(await call(srv, 'sql_thing', { database: 'prod', sql: 'update t set x = 1' }), 'update');
			refused(await call(srv, 'run_thing', git(many)), 'many');
		} finally {
			await srv.close();
		}
		assert.deepEqual(asked, [
			`The client "${CLIENT.name}" wants to run the tool 'run_thing': run "/usr/bin/git" `
			    + `with arguments "push" "--force" "a\\"b" in "${tree.p('sub')}", setting "GIT_DIR". `
			    + 'Allow it? (asked by toolcell-hostile)',
			`The client "${CLIENT.name}" wants to run the tool 'sql_thing': change data in the `
			    + 'database "prod". Allow it? (asked by toolcell-hostile)',
			`The client "${CLIENT.name}" wants to run the tool 'run_thing': run "/usr/bin/git" `
			    + `with arguments ${many.slice(0, 8).map((a) => `"${a}"`).join(' ')} and 2 more `
			    + 'arguments. Allow it? (asked by toolcell-hostile)',
		]);
	});

	test('the tool may refuse a call, and a cwd is checked as a path is', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'refuse.jsonl');
		const p = await policy([`allow read ${tree.root}`, 'deny no', `audit ${log}`]);
		const srv = await start(['--policy', p]);
		try {
			assert.equal(refused(await call(srv, 'run_thing', { program: '/forbidden' }), 'forbidden'),
			    'The call was not run: the program \'/forbidden\' is not one the policy allows.');
			assert.equal(refused(await call(srv, 'run_thing', { program: 'git' }), 'relative'),
			    'invalid arguments for \'run_thing\': \'program\' must be an absolute path');
			assert.match(refused(await call(srv, 'run_thing', { program: '/bin/true', cwd: 'sub/../no' }),
			    'denied cwd'), /^'sub\/\.\.\/no': denied by policy rule 'deny no' \(line 2\)/);
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		assert.deepEqual(calls.map((c) => [c.decision, c.by]), [['denied', 'policy'],
		    ['denied', 'validation'], ['denied', 'policy']]);
	});
});

describe('subjects in the audit log', () => {
	test('call and result records carry them; toolcell-audit verifies, tails and sums up the log', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'subjects.jsonl');
		const p = await policy([`allow read ${tree.root}`, `audit ${log}`]);
		const srv = await start(['--policy', p]);
		try {
			ran(await call(srv, 'run_thing', git(['log', '--oneline'], { cwd: 'sub', env: ['PAGER'] })), 'git');
			ran(await call(srv, 'sql_thing', { database: 'main', sql: 'select 1' }), 'sql');
		} finally {
			await srv.close();
		}
		const recs = (await logRecords(log)).filter((r) => r.event === 'call' || r.event === 'result');
		const gitSubjects = [
			{ kind: 'program', value: '/usr/bin/git', access: 'execute' },
			{ kind: 'arg', value: 'log' },
			{ kind: 'arg', value: '--oneline' },
			{ kind: 'cwd', value: tree.p('sub') },
			{ kind: 'env', value: 'PAGER' },
		];
		const sqlSubjects = [{ kind: 'database', value: 'main', access: 'read' },
		    { kind: 'statement', value: 'read' }];
		assert.deepEqual(recs.map((r) => [r.event, r.tool, r.paths, r.subjects]), [
			['call', 'run_thing', undefined, gitSubjects],
			['result', 'run_thing', undefined, gitSubjects],
			['call', 'sql_thing', undefined, sqlSubjects],
			['result', 'sql_thing', undefined, sqlSubjects],
		]);
		const v = await runServer(['verify', log], AUDIT);
		assert.equal(v.status, 0, v.stderr);
		const t = await runServer(['tail', '-n', '4', log], AUDIT);
		assert.equal(t.status, 0, t.stderr);
		assert.match(t.stdout, new RegExp(` result 1 run_thing \\[program /usr/bin/git, arg log, `
		    + `arg --oneline, cwd ${tree.p('sub')}, env PAGER\\] ok `));
		assert.match(t.stdout, / call 2 request \S+ sql_thing \[database main, statement read\] run\n/);
		assert.match(t.stdout, / result 2 sql_thing \[database main, statement read\] ok /);
		const s = await runServer(['summary', '--json', log], AUDIT);
		assert.equal(s.status, 0, s.stderr);
		const sum = JSON.parse(s.stdout);
		assert.deepEqual(sum.subjects['program /usr/bin/git'], { calls: 1, run: 1, denied: 0, cancelled: 0 });
		assert.deepEqual(sum.subjects['statement read'], { calls: 1, run: 1, denied: 0, cancelled: 0 });
		assert.equal(sum.subjects[`cwd ${tree.p('sub')}`].calls, 1);
	});

	test('toolcell-fs: records and hook input as before, with the paths also as subjects', async () => {
		const d = await ownedDir();
		const log = path.join(d, 'fs.jsonl');
		const h = await recordingHook(d);
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file', `consent-hook ${h}`,
		    `audit ${log}`]);
		const srv = await start(['--policy', p], { server: path.join(BUILD, 'toolcell-fs') });
		try {
			const r = await call(srv, 'read_text_file', { path: 'sub/../a.txt' });
			assert.equal(r.structuredContent.content, 'alpha\n');
		} finally {
			await srv.close();
		}
		const [input] = await hookInputs(d);
		assert.deepEqual(Object.keys(input), ['server', 'tool', 'arguments', 'annotations', 'rule',
		    'client', 'paths', 'subjects']);
		assert.deepEqual(input.paths, [tree.p('a.txt')]);
		assert.deepEqual(input.subjects, [{ kind: 'path', value: tree.p('a.txt'), access: 'read' }]);
		const recs = (await logRecords(log)).filter((x) => x.event === 'call' || x.event === 'result');
		for (const rec of recs) {
			assert.deepEqual(rec.paths, [{ root: tree.root, path: 'a.txt' }], rec.event);
			assert.deepEqual(rec.subjects, [{ kind: 'path', value: tree.p('a.txt'), access: 'read' }],
			    rec.event);
		}
		const call1 = recs[0];
		assert.deepEqual(Object.keys(call1).filter((k) => !['seq', 'time', 'writer', 'prev', 'hash']
		    .includes(k)), ['event', 'call', 'request_id', 'tool', 'args', 'paths', 'subjects',
		    'decision', 'by', 'rule', 'consent']);
		assert.equal((await runServer(['verify', log], AUDIT)).status, 0);
	});
});

describe('typed consent rules in the policy', () => {
	async function check(lines, server = HOSTILE) {
		const p = await policy(lines);
		return { ...await runServer(['--policy', p, '--check'], server), p };
	}

	test('--check shows them', async () => {
		const r = await check([`allow read ${tree.root}`, 'consent run_thing program /usr/bin/git arg push',
		    'consent * statement write schema']);
		assert.equal(r.status, 0, r.stderr);
		assert.ok(r.stdout.includes([
			'consent:',
			'  run_thing when its program matches /usr/bin/git and its arg matches push  (line 2)',
			'  every tool when its statement matches write, schema  (line 3)',
		].join('\n')), r.stdout);
	});

	test('each mistake is reported with its line', async () => {
		const r = await check([
			`allow read ${tree.root}`,
			'consent run_thing program',
			'consent run_thing arg a arg b',
			'consent sql_thing statement delete',
			'consent run_thing program git/x',
			'consent run_thing env [a',
		]);
		assert.equal(r.status, 1);
		assert.equal(r.stderr, [
			`toolcell-hostile: error: ${r.p}:2: consent: 'program' without a value: name what to ask about after it`,
			`toolcell-hostile: error: ${r.p}:3: consent: 'arg' named twice: list its values after one 'arg'`,
			`toolcell-hostile: error: ${r.p}:4: consent: statement: 'delete': a statement is 'read', 'write' or 'schema'`,
			`toolcell-hostile: error: ${r.p}:5: consent: program: 'git/x': a program is matched by its absolute `
			    + 'path, or by its file name alone: write \'/usr/bin/git\' or \'git\'',
			`toolcell-hostile: error: ${r.p}:6: consent: env: '[a': '[' without a matching ']' in the same component`,
			'toolcell-hostile: 5 errors',
			'',
		].join('\n'));
	});

	test('a kind no tool of the rule has refuses the start: toolcell-fs has only paths', async () => {
		const r = await check([`allow read ${tree.root}`, 'consent read_text_file env'], path.join(BUILD, 'toolcell-fs'));
		assert.equal(r.status, 1);
		assert.match(r.stderr, new RegExp(`${r.p}:2: consent: 'env' without a value`));
		const q = await check([`allow read ${tree.root}`, 'consent write_file env x'], path.join(BUILD, 'toolcell-fs'));
		assert.equal(q.status, 1);
		assert.match(q.stderr, new RegExp(`error: ${q.p}:2: consent: write_file has no 'env' subjects \\(it has: `
		    + `path\\), so the rule would never ask; a path pattern that is the word 'env' is written '\\\\env'`));
		const s = await check([`allow read ${tree.root}`, 'consent * program rm'], path.join(BUILD, 'toolcell-fs'));
		assert.equal(s.status, 1);
		assert.match(s.stderr, /:2: consent: no tool of toolcell-fs has 'program' subjects \(they have: path\), so the rule would never ask/);
		// Escaped, the word is a path pattern, as it always was.
		const e = await check([`allow read ${tree.root}`, 'consent read_text_file \\env'], path.join(BUILD, 'toolcell-fs'));
		assert.equal(e.status, 0, e.stderr);
		assert.match(e.stdout, /read_text_file on paths matching \\env {2}\(line 2\)/);
		// On the hostile server, a '*' rule whose kinds no one tool has.
		const m = await check([`allow read ${tree.root}`, 'consent * program git statement write']);
		assert.equal(m.status, 1);
		assert.match(m.stderr, /:2: consent: no tool of toolcell-hostile has subjects of every kind the rule names, so it would never ask/);
	});
});
