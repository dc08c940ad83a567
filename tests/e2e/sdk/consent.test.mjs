// consent.test.mjs: calls a policy's 'consent' lines cover wait for a
// person's yes, asked through the client (MCP elicitation) or by the
// policy's consent hook, and run only on an explicit yes.  Every other
// answer, and every way of not answering, denies: the call comes back as
// a tool result with isError whose text says who denied it and why.
//
// With TOOLCELL_AS=nobody the server, and so its hooks, run as nobody: the
// directories the hooks and the audit log write to belong to the server's
// user, and everything else is 0755/0644.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { after, before, describe, test } from 'node:test';

import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
	FS_POLICY_NAMES, call, entryName, logRecords, makeScratch, makeTree, runServer, startServer, symlink,
	textOf, until, withTimeout,
} from './lib.mjs';

const CLIENT = { name: 'toolcell-consent', version: '4.5.6' };

let tree;		// the served directory
const base = await makeScratch('consent');	// policies, hooks, and what they write
const { policy, ownedDir } = base;

/* Writes the shell script |body| as an executable hook; returns its path. */
async function hook(body, mode = 0o755) {
	const p = base.unique('hook', '.sh');
	await fsp.writeFile(p, `#!/bin/sh\n${body}\n`);
	await fsp.chmod(p, mode);
	return p;
}

/*
 * Starts toolcell-fs with |args| for the client CLIENT, declaring
 * opts.capabilities; opts.elicit, when given, answers elicitation/create.
 */
function startClient(args, opts = {}) {
	return startServer(args, { capabilities: opts.capabilities, env: opts.env,
	    clientInfo: CLIENT, handlers: opts.elicit ? [[ElicitRequestSchema, opts.elicit]] : [] });
}

/* An elicitation handler that counts its requests and answers |answer|. */
function answering(answer) {
	const h = async (req, extra) => {
		h.requests.push(req);
		return typeof answer === 'function' ? answer(req, extra) : answer;
	};
	h.requests = [];
	return h;
}

/* Asserts |r| is a denial, and returns its text. */
function denied(r, what) {
	assert.equal(r.isError, true, `${what}: expected a denial, got ${JSON.stringify(r)}`);
	assert.equal(r.structuredContent, undefined, `${what}: a denial carries structuredContent`);
	return textOf(r);
}

/* The exact text of a consent denial. */
function denial(why, rule) {
	return `The call was not run: ${why}. (Policy rule '${rule}' asks a person before this call.)`;
}

/* Asserts |r| is the successful read of a.txt. */
function readA(r, what) {
	assert.notEqual(r.isError, true, `${what}: ${JSON.stringify(r.content)}`);
	assert.equal(r.structuredContent.content, 'alpha\n', what);
}

/* Lines written by a hook into |file|, or [] if it does not exist. */
async function lines(file) {
	try {
		const t = await fsp.readFile(file, 'utf8');
		return t.split('\n').filter((l) => l !== '');
	} catch (e) {
		if (e.code === 'ENOENT')
			return [];
		throw e;
	}
}

/* Returns true if a process |pid| exists. */
function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

before(async () => {
	tree = await makeTree({
		'a.txt': 'alpha\n',
		'b.txt': 'bravo\n',
		'secret/s.txt': 'sierra\n',
		'sub/c.txt': 'charlie\n',
		'to-secret': symlink('secret/s.txt'),
	});
});

after(async () => {
	await tree?.cleanup();
	await base.cleanup();
});

describe('consent: nobody to ask', () => {
	test('no elicitation and no hook: denied, saying nobody could be asked', async () => {
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial('nobody could be asked for consent (the client does not '
			    + 'support elicitation and the policy names no consent-hook), so it is denied',
			    'consent read_text_file (line 2)'));
			assert.ok(!t.includes('alpha'), 'the file was read anyway');
			// Tools no rule covers run as ever.
			const l = await call(srv, 'list_directory', { path: '.' });
			assert.notEqual(l.isError, true, JSON.stringify(l.content));
			assert.deepEqual(l.structuredContent.entries.map(entryName),
			    ['a.txt', 'b.txt', 'secret', 'sub', 'to-secret']);
			// The alias is the same tool: the rule covers it.
			assert.equal(denied(await call(srv, 'read_file', { path: 'a.txt' }), 'read_file'), t);
			// Asking again is denied again: nothing is remembered.
			denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'second read');
		} finally {
			await srv.close();
		}
	});

	test('consent * covers every tool, list_allowed_directories too', async () => {
		const p = await policy([`allow read ${tree.root}`, 'consent *']);
		const srv = await startClient(['--policy', p]);
		try {
			for (const [tool, args] of [['list_allowed_directories', {}],
			    ['read_text_file', { path: 'a.txt' }], ['read_file', { path: 'a.txt' }],
			    ['list_directory', { path: '.' }], ['get_file_info', { path: 'a.txt' }]]) {
				const t = denied(await call(srv, tool, args), tool);
				assert.equal(t, denial('nobody could be asked for consent (the client does '
				    + 'not support elicitation and the policy names no consent-hook), so it '
				    + 'is denied', 'consent * (line 2)'), tool);
			}
		} finally {
			await srv.close();
		}
	});

	test('consent-by elicitation, a hook given but not named: the hook is not run', async () => {
		const out = await ownedDir();
		const h = await hook(`echo ran >> "${out}/ran"\nexit 0`);
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    'consent-by elicitation', `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial('nobody could be asked for consent (the client does not '
			    + 'support elicitation), so it is denied', 'consent read_text_file (line 2)'));
			assert.deepEqual(await lines(path.join(out, 'ran')), [], 'the hook ran');
		} finally {
			await srv.close();
		}
	});

	test('a call that fails validation is refused before anyone is asked', async () => {
		const out = await ownedDir();
		const h = await hook(`echo ran >> "${out}/ran"\nexit 0`);
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt', head: 0 }),
			    'head 0');
			assert.match(t, /^invalid arguments for 'read_text_file': /);
			assert.deepEqual(await lines(path.join(out, 'ran')), [], 'the hook was asked');
		} finally {
			await srv.close();
		}
	});
});

describe('consent by hook', () => {
	test('exit 0 allows; the hook gets the call as JSON, its argv and a clean environment', async () => {
		const out = await ownedDir();
		const h = await hook([
			`out="${out}"`,
			'cat > "$out/stdin.json"',
			'env > "$out/env"',
			'printf "%s\\n" "$@" > "$out/argv"',
			'pwd > "$out/cwd"',
			'echo "fine by me"',
			'echo "a second line, ignored"',
			'exit 0',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h} --ask "two words"`, 'consent-timeout 7s']);
		const srv = await startClient(['--policy', p], {
		    env: { TOOLCELL_TEST_SECRET: 'must-not-pass' } });
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt', head: 5 }), 'read');
			const doc = JSON.parse(await fsp.readFile(path.join(out, 'stdin.json'), 'utf8'));
			assert.equal(doc.server, 'toolcell-fs');
			assert.equal(doc.tool, 'read_text_file');
			assert.deepEqual(doc.arguments, { path: 'a.txt', head: 5 });
			assert.deepEqual(doc.annotations, { readOnlyHint: true, destructiveHint: false,
			    idempotentHint: true, openWorldHint: false });
			assert.equal(doc.rule, 'consent read_text_file (line 2)');
			assert.deepEqual(doc.client, CLIENT);
			assert.ok(Array.isArray(doc.paths), `paths: ${JSON.stringify(doc.paths)}`);
			assert.deepEqual(await lines(path.join(out, 'argv')), ['--ask', 'two words']);
			assert.deepEqual(await lines(path.join(out, 'cwd')), ['/']);
			const env = Object.fromEntries((await lines(path.join(out, 'env')))
			    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
			assert.equal(env.TOOLCELL_SERVER, 'toolcell-fs');
			assert.equal(env.TOOLCELL_TOOL, 'read_text_file');
			assert.equal(env.TOOLCELL_TIMEOUT_MS, '7000');
			assert.equal(env.PATH, '/usr/local/bin:/usr/bin:/bin');
			assert.equal(env.TOOLCELL_TEST_SECRET, undefined, 'the server\'s environment leaked');
			// Tools no rule covers are not asked about.
			const l = await call(srv, 'get_file_info', { path: 'b.txt' });
			assert.notEqual(l.isError, true, JSON.stringify(l.content));
			assert.equal((await lines(path.join(out, 'argv'))).length, 2);
		} finally {
			await srv.close();
		}
	});

	test('the hook is asked on every call, and a non-zero exit denies with its reason', async () => {
		const out = await ownedDir();
		// Allows a.txt, denies the rest: it reads the call from stdin.
		const h = await hook([
			`echo call >> "${out}/calls"`,
			'if grep -q \'"path":"a.txt"\'; then echo "a.txt is fine"; exit 0; fi',
			'echo "not that one, sorry"',
			'exit 3',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, '# the rule:', 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'a.txt');
			const t = denied(await call(srv, 'read_text_file', { path: 'b.txt' }), 'b.txt');
			assert.equal(t, denial(`consent hook '${h}' denied the call (exit status 3): `
			    + 'not that one, sorry', 'consent read_text_file (line 3)'));
			assert.ok(!t.includes('bravo'));
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'a.txt again');
			assert.equal((await lines(path.join(out, 'calls'))).length, 3);
		} finally {
			await srv.close();
		}
	});

	test('a denial without a reason says the exit status', async () => {
		const h = await hook('exit 1');
		const p = await policy([`allow read ${tree.root}`, 'consent *', `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'list_directory', { path: '.' }), 'list');
			assert.equal(t, denial(`consent hook '${h}' denied the call (exit status 1)`,
			    'consent * (line 2)'));
		} finally {
			await srv.close();
		}
	});

	test('"session" allows and is remembered per tool and rule', async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const h = await hook([
			`echo "$TOOLCELL_TOOL" >> "${out}/calls"`,
			'echo "session  ok for today"',
			'exit 0',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent *', `consent-hook ${h}`,
		    `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'first');
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'second');
			const l = await call(srv, 'list_directory', { path: 'sub' });
			assert.notEqual(l.isError, true, JSON.stringify(l.content));
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'third');
			const g = await call(srv, 'list_directory', { path: '.' });
			assert.notEqual(g.isError, true, JSON.stringify(g.content));
			assert.deepEqual(await lines(path.join(out, 'calls')),
			    ['read_text_file', 'list_directory'], 'asked once per tool');
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		assert.deepEqual(calls.map((r) => [r.tool, r.decision, r.by, r.rule, r.consent]), [
			['read_text_file', 'run', 'consent', 'consent * (line 2)',
			    { means: 'hook', answer: 'allow-session', detail: 'ok for today' }],
			['read_text_file', 'run', 'consent', 'consent * (line 2)',
			    { means: 'session', answer: 'allow-session' }],
			['list_directory', 'run', 'consent', 'consent * (line 2)',
			    { means: 'hook', answer: 'allow-session', detail: 'ok for today' }],
			['read_text_file', 'run', 'consent', 'consent * (line 2)',
			    { means: 'session', answer: 'allow-session' }],
			['list_directory', 'run', 'consent', 'consent * (line 2)',
			    { means: 'session', answer: 'allow-session' }],
		]);
	});

	test('"session" is a first word only: "sessions" and a plain yes are asked again', async () => {
		const out = await ownedDir();
		const h = await hook([
			`echo x >> "${out}/calls"`,
			'echo "sessions are not a thing"',
			'exit 0',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'first');
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'second');
			assert.equal((await lines(path.join(out, 'calls'))).length, 2);
		} finally {
			await srv.close();
		}
	});

	test('"session" with a non-zero exit denies and is not remembered', async () => {
		const out = await ownedDir();
		const h = await hook([
			`echo x >> "${out}/calls"`,
			'echo "session no"',
			'exit 2',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'first');
			assert.equal(t, denial(`consent hook '${h}' denied the call (exit status 2): `
			    + 'session no', 'consent read_text_file (line 2)'));
			denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'second');
			assert.equal((await lines(path.join(out, 'calls'))).length, 2);
		} finally {
			await srv.close();
		}
	});

	test('a hook that crashes denies', async () => {
		const h = await hook('echo "about to die"\nkill -KILL $$');
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial(`consent hook '${h}' was killed by signal 9 (Killed), `
			    + 'which counts as no', 'consent read_text_file (line 2)'));
		} finally {
			await srv.close();
		}
	});

	test('a hook that hangs is killed, with what it started, at consent-timeout; the server serves meanwhile', async () => {
		const out = await ownedDir();
		const h = await hook([
			`sleep 60 & echo $! > "${out}/pid"`,
			'wait',
			'exit 0',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`, 'consent-timeout 2s']);
		const srv = await startClient(['--policy', p]);
		try {
			const t0 = Date.now();
			const pending = call(srv, 'read_text_file', { path: 'a.txt' });
			const pid = Number(await until(async () => (await lines(path.join(out, 'pid')))[0],
			    5000, 'the hook\'s pid file'));
			assert.ok(alive(pid), 'the hook\'s sleep is not running');
			// Meanwhile: pings and calls no rule covers are served.
			let settled = false;
			pending.finally(() => { settled = true; });
			assert.deepEqual(await withTimeout(srv.client.ping(), 1500, 'ping'), {});
			const l = await withTimeout(call(srv, 'list_directory', { path: '.' }), 1500,
			    'list_directory while consent is asked');
			assert.notEqual(l.isError, true, JSON.stringify(l.content));
			assert.equal(settled, false, 'the asked call was settled before the other call ran');
			const t = denied(await pending, 'read');
			const ms = Date.now() - t0;
			assert.equal(t, denial(`consent hook '${h}' gave no answer within 2000 ms and `
			    + 'was killed, which counts as no', 'consent read_text_file (line 2)'));
			assert.ok(ms >= 1950 && ms < 6000, `denied after ${ms} ms`);
			await until(() => !alive(pid), 3000, 'the hook\'s sleep to die');
		} finally {
			await srv.close();
		}
	});

	test('a hook removed after the server started denies, saying so', async () => {
		const h = await hook('exit 0');
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'before');
			await fsp.rm(h);
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'after');
			assert.equal(t, denial(`consent hook '${h}' not found, which counts as no`,
			    'consent read_text_file (line 2)'));
			// And the server goes on serving.
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
	});

	test('a hook made non-executable after the server started denies, saying so', async () => {
		const h = await hook('exit 0');
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			await fsp.chmod(h, 0o644);
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial(`consent hook '${h}' is not executable (permission `
			    + 'denied), which counts as no', 'consent read_text_file (line 2)'));
		} finally {
			await srv.close();
		}
	});

	test('a hook whose interpreter is missing denies, saying so', async () => {
		const h = base.unique('hook', '.sh');
		await fsp.writeFile(h, '#!/nonexistent/interpreter\nexit 0\n');
		await fsp.chmod(h, 0o755);
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial(`consent hook '${h}' cannot run: the interpreter its '#!' `
			    + 'line names was not found, which counts as no',
			    'consent read_text_file (line 2)'));
		} finally {
			await srv.close();
		}
	});

	test('a reason with control characters is cleaned before it reaches the model', async () => {
		const h = await hook('printf "  no\\033[31m way\\t!  \\n"\nexit 1');
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial(`consent hook '${h}' denied the call (exit status 1): `
			    + 'no [31m way !', 'consent read_text_file (line 2)'));
		} finally {
			await srv.close();
		}
	});

	test('two calls asked at once are answered each by its own hook run', async () => {
		const out = await ownedDir();
		// a.txt's hook waits until the test says go; b.txt's answers no.
		const h = await hook([
			`out="${out}"`,
			'if grep -q \'"path":"a.txt"\'; then',
			'  i=0; while [ ! -e "$out/go" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done',
			'  [ -e "$out/go" ] || { echo "never told to go"; exit 9; }',
			'  echo "a ok"; exit 0',
			'fi',
			'echo "no b"; exit 1',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${h}`]);
		const srv = await startClient(['--policy', p]);
		try {
			let aDone = false;
			const a = call(srv, 'read_text_file', { path: 'a.txt' })
			    .finally(() => { aDone = true; });
			const b = call(srv, 'read_text_file', { path: 'b.txt' });
			assert.equal(denied(await b, 'b.txt'), denial(`consent hook '${h}' denied the call `
			    + '(exit status 1): no b', 'consent read_text_file (line 2)'));
			assert.equal(aDone, false, 'a.txt was answered before its hook was told to go');
			await fsp.writeFile(path.join(out, 'go'), '');
			readA(await a, 'a.txt');
		} finally {
			await srv.close();
		}
	});
});

describe('consent by elicitation', () => {
	const ELICIT = { elicitation: {} };

	test('accept with allow: true runs the call; the request says what is asked', async () => {
		const h = answering({ action: 'accept', content: { allow: true } });
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(h.requests.length, 1);
			const params = h.requests[0].params;
			assert.equal(typeof params.message, 'string');
			assert.ok(params.message.startsWith(`The client "${CLIENT.name}" wants to run the `
			    + 'tool \'read_text_file\''), params.message);
			assert.ok(params.message.endsWith('. Allow it? (asked by toolcell-fs)'), params.message);
			const schema = params.requestedSchema;
			assert.equal(schema.type, 'object');
			assert.deepEqual(Object.keys(schema.properties).sort(), ['allow', 'session']);
			assert.equal(schema.properties.allow.type, 'boolean');
			assert.equal(schema.properties.session.type, 'boolean');
			assert.equal(schema.properties.allow.default, false);
			assert.deepEqual(schema.required, ['allow']);
			// A tool no rule covers is not asked about.
			const l = await call(srv, 'list_directory', { path: '.' });
			assert.notEqual(l.isError, true);
			assert.equal(h.requests.length, 1);
			// Without "session", the next call is asked again.
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'again');
			assert.equal(h.requests.length, 2);
		} finally {
			await srv.close();
		}
	});

	for (const [name, answer, why] of [
		['accept with allow: false', { action: 'accept', content: { allow: false, session: true } },
		    'the user answered no'],
		['accept without allow', { action: 'accept', content: { session: true } },
		    'the user answered no'],
		['accept with allow as a string', { action: 'accept', content: { allow: 'true' } },
		    'the user answered no'],
		['decline', { action: 'decline' }, 'the user declined it'],
		['cancel', { action: 'cancel' },
		    'the user dismissed the request for consent, which counts as no'],
	]) {
		test(`${name} denies`, async () => {
			const h = answering(answer);
			const p = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
			const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
			try {
				const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), name);
				assert.equal(t, denial(why, 'consent read_text_file (line 2)'));
				// Nothing is remembered: the next call is asked again.
				denied(await call(srv, 'read_text_file', { path: 'a.txt' }), `${name} again`);
				assert.equal(h.requests.length, 2);
			} finally {
				await srv.close();
			}
		});
	}

	test('accept with session: true is remembered for the session, per tool', async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const h = answering({ action: 'accept', content: { allow: true, session: true } });
		const p = await policy([`allow read ${tree.root}`, 'consent *', `audit ${log}`]);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'first');
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'second');
			assert.equal(h.requests.length, 1);
			const g = await call(srv, 'get_file_info', { path: 'a.txt' });
			assert.notEqual(g.isError, true);
			assert.equal(h.requests.length, 2, 'another tool is asked about');
		} finally {
			await srv.close();
		}
		const calls = (await logRecords(log)).filter((r) => r.event === 'call');
		assert.deepEqual(calls.map((r) => [r.tool, r.decision, r.consent]), [
			['read_text_file', 'run', { means: 'elicitation', answer: 'allow-session' }],
			['read_text_file', 'run', { means: 'session', answer: 'allow-session' }],
			['get_file_info', 'run', { means: 'elicitation', answer: 'allow-session' }],
		]);
	});

	/* Starts a server whose client never answers; returns {srv, log, aborted()}. */
	async function unanswered() {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		let aborted = null;
		const h = answering((req, extra) => new Promise((resolve) => {
			extra.signal.addEventListener('abort', () => {
				aborted = Date.now();
				resolve({ action: 'accept', content: { allow: true } });
			});
		}));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    'consent-timeout 1s', `audit ${log}`]);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		return { srv, log, aborted: () => aborted };
	}

	test('no answer within consent-timeout denies, and the server cancels its request', async () => {
		const { srv, aborted } = await unanswered();
		try {
			const t0 = Date.now();
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			const ms = Date.now() - t0;
			assert.equal(t, denial('no answer to the request for consent within 1 s, which '
			    + 'counts as no', 'consent read_text_file (line 2)'));
			assert.ok(ms >= 950 && ms < 5000, `denied after ${ms} ms`);
			const req = srv.messages.find((m) => m.method === 'elicitation/create');
			assert.ok(req, 'no elicitation/create request');
			const cancels = srv.messages.filter((m) => m.method === 'notifications/cancelled');
			assert.equal(cancels.length, 1, JSON.stringify(cancels));
			assert.equal(cancels[0].params.requestId, req.id);
			assert.equal(typeof cancels[0].params.reason, 'string');
			await until(() => aborted() !== null, 2000, 'the client\'s handler to be aborted');
			// The late answer (the SDK sends none once aborted) changes nothing.
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
	});

	test('the record of a timed-out elicitation names elicitation as the means', async () => {
		const { srv, log } = await unanswered();
		try {
			denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
		} finally {
			await srv.close();
		}
		const c = (await logRecords(log)).find((r) => r.event === 'call');
		assert.equal(c.decision, 'denied');
		assert.equal(c.by, 'consent');
		assert.equal(c.rule, 'consent read_text_file (line 2)');
		assert.equal(c.reason, 'no answer to the request for consent within 1 s, which counts as no');
		assert.deepEqual(c.consent, { means: 'elicitation', answer: 'timeout' });
	});

	test('an error answer falls through to the hook', async () => {
		const out = await ownedDir();
		const hk = await hook(`echo x >> "${out}/calls"\necho "the hook says yes"\nexit 0`);
		const log = path.join(out, 'audit.jsonl');
		const h = answering(() => { throw new Error('no window to ask in'); });
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${hk}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(h.requests.length, 1);
			assert.equal((await lines(path.join(out, 'calls'))).length, 1);
		} finally {
			await srv.close();
		}
		const c = (await logRecords(log)).find((r) => r.event === 'call');
		assert.equal(c.decision, 'run');
		assert.deepEqual(c.consent, { means: 'hook', answer: 'allow',
		    detail: 'the hook says yes' });
	});

	test('an error answer and no hook: denied, with the client\'s error', async () => {
		const h = answering(() => { throw new Error('no window to ask in'); });
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial('nobody could be asked for consent (the client could not '
			    + 'ask: no window to ask in), so it is denied', 'consent read_text_file (line 2)'));
		} finally {
			await srv.close();
		}
	});

	test('a no by elicitation is final: the hook is not asked after it', async () => {
		const out = await ownedDir();
		const hk = await hook(`echo x >> "${out}/calls"\nexit 0`);
		const h = answering({ action: 'decline' });
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${hk}`]);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial('the user declined it', 'consent read_text_file (line 2)'));
			assert.deepEqual(await lines(path.join(out, 'calls')), []);
		} finally {
			await srv.close();
		}
	});

	test('consent-by hook elicitation asks the hook first, even a client that could ask', async () => {
		const out = await ownedDir();
		const hk = await hook(`echo x >> "${out}/calls"\necho "hook: no"\nexit 1`);
		const h = answering({ action: 'accept', content: { allow: true } });
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    'consent-by hook elicitation', `consent-hook ${hk}`]);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(t, denial(`consent hook '${hk}' denied the call (exit status 1): `
			    + 'hook: no', 'consent read_text_file (line 2)'));
			assert.equal(h.requests.length, 0, 'the client was asked');
			assert.equal((await lines(path.join(out, 'calls'))).length, 1);
		} finally {
			await srv.close();
		}
	});

	test('consent-by hook alone never asks the client', async () => {
		const hk = await hook('echo "yes"\nexit 0');
		const h = answering({ action: 'decline' });
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    'consent-by hook', `consent-hook ${hk}`]);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(h.requests.length, 0);
		} finally {
			await srv.close();
		}
	});

	test('while consent is asked, pings and other calls are served', async () => {
		let answer;
		const h = answering(() => new Promise((resolve) => { answer = resolve; }));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			let settled = false;
			const pending = call(srv, 'read_text_file', { path: 'a.txt' })
			    .finally(() => { settled = true; });
			await until(() => h.requests.length === 1, 5000, 'the elicitation request');
			assert.deepEqual(await withTimeout(srv.client.ping(), 2000, 'ping'), {});
			const l = await withTimeout(call(srv, 'list_directory', { path: 'sub' }), 5000,
			    'list_directory');
			assert.deepEqual(l.structuredContent.entries, ['c.txt']);
			const r = await withTimeout(call(srv, 'get_file_info', { path: 'b.txt' }), 5000,
			    'get_file_info');
			assert.equal(r.structuredContent.size, 6);
			assert.equal(settled, false, 'the asked call finished before the answer');
			answer({ action: 'accept', content: { allow: true } });
			readA(await pending, 'read');
		} finally {
			await srv.close();
		}
	});

	test('two calls asked at once: each answer settles its own call', async () => {
		const answers = [];
		const h = answering((req) => new Promise((resolve) => { answers.push({ req, resolve }); }));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		try {
			const a = call(srv, 'read_text_file', { path: 'a.txt' });
			const b = call(srv, 'read_text_file', { path: 'b.txt' });
			await until(() => answers.length === 2, 5000, 'two elicitation requests');
			// Requests go out in the order the calls came: a's first.
			// b's is answered first, and yes; a's then, and no.
			answers[1].resolve({ action: 'accept', content: { allow: true } });
			assert.equal(textOf(await b).includes('bravo'), true);
			answers[0].resolve({ action: 'decline' });
			assert.equal(denied(await a, 'a.txt'), denial('the user declined it',
			    'consent read_text_file (line 2)'));
		} finally {
			await srv.close();
		}
	});

	test('at most 256 calls wait for consent; the next is refused as busy', async () => {
		const h = answering(() => new Promise(() => {}));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    'consent-timeout 60s']);
		const srv = await startClient(['--policy', p], { capabilities: { elicitation: {} }, elicit: h });
		const pending = [];
		try {
			for (let i = 0; i < 256; i++)
				pending.push(call(srv, 'read_text_file', { path: 'a.txt' }).catch(() => null));
			await until(() => h.requests.length === 256, 8000, '256 questions');
			const t = denied(await call(srv, 'read_text_file', { path: 'a.txt' }), 'the 257th');
			assert.equal(t, 'the server is busy with 0 calls and 256 waiting; try again when '
			    + 'one has finished');
			assert.equal(h.requests.length, 256, 'the 257th was asked about');
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
			await Promise.all(pending);
		}
	});

	test('a client without the elicitation capability is never sent a request', async () => {
		const hk = await hook('echo ok\nexit 0');
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${hk}`]);
		const srv = await startClient(['--policy', p]);
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.deepEqual(srv.messages.filter((m) => m.method !== undefined && m.id !== undefined),
			    [], 'the server sent a request');
		} finally {
			await srv.close();
		}
	});
});

describe('consent: the client cancels while asked', () => {
	const ELICIT = { elicitation: {} };

	/*
	 * Starts a server with an audit log, asks for consent by elicitation,
	 * and cancels the call while it is asked; returns {srv, log, req,
	 * aborted()} with the server still running.
	 */
	async function cancelWhileAsked() {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		let aborted = false;
		const h = answering((req, extra) => new Promise((resolve) => {
			extra.signal.addEventListener('abort', () => {
				aborted = true;
				resolve({ action: 'decline' });
			});
		}));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `audit ${log}`]);
		const srv = await startClient(['--policy', p], { capabilities: ELICIT, elicit: h });
		const ac = new AbortController();
		const pending = call(srv, 'read_text_file', { path: 'a.txt' }, { signal: ac.signal });
		await until(() => h.requests.length === 1, 5000, 'the elicitation request');
		ac.abort('changed my mind');
		await assert.rejects(pending);
		const req = srv.messages.find((m) => m.method === 'elicitation/create');
		return { srv, log, req, aborted: () => aborted };
	}

	test('cancelled during elicitation: recorded as cancelled, and serving goes on', async () => {
		const { srv, log } = await cancelWhileAsked();
		try {
			assert.deepEqual(await srv.client.ping(), {});
			const l = await call(srv, 'list_directory', { path: 'sub' });
			assert.notEqual(l.isError, true);
		} finally {
			await srv.close();
		}
		const recs = await logRecords(log);
		const c = recs.find((r) => r.event === 'call' && r.tool === 'read_text_file');
		assert.equal(c.decision, 'cancelled');
		assert.equal(c.by, 'client');
		assert.equal(c.rule, 'consent read_text_file (line 2)');
		assert.equal(c.consent.answer, 'cancel');
		assert.equal(c.reason, 'cancelled by the client while consent was asked');
		assert.ok(!recs.some((r) => r.event === 'result' && r.call === c.call),
		    'a result record for a call that never ran');
		assert.equal(recs.filter((r) => r.event === 'call').length, 2);
	});

	test('cancelled during elicitation: the record names elicitation as the means', async () => {
		const { srv, log } = await cancelWhileAsked();
		await srv.close();
		const c = (await logRecords(log)).find((r) => r.event === 'call');
		assert.deepEqual(c.consent, { means: 'elicitation', answer: 'cancel' });
	});

	test('cancelled during elicitation: the server takes its request down', async () => {
		const { srv, req, aborted } = await cancelWhileAsked();
		try {
			await until(() => srv.messages.some((m) => m.method === 'notifications/cancelled'
			    && m.params?.requestId === req.id), 2000,
			    'notifications/cancelled for the elicitation request');
			await until(aborted, 2000, 'the client\'s handler to be aborted');
		} finally {
			await srv.close();
		}
	});

	test('cancelled while the hook runs: the hook and its children are killed, and it is recorded', async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const hk = await hook([
			`sleep 60 & echo $! > "${out}/pid"`,
			'wait',
			'exit 0',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${hk}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		try {
			const ac = new AbortController();
			const pending = call(srv, 'read_text_file', { path: 'a.txt' }, { signal: ac.signal });
			const pid = Number(await until(async () => (await lines(path.join(out, 'pid')))[0],
			    5000, 'the hook\'s pid file'));
			ac.abort('no longer needed');
			await assert.rejects(pending);
			await until(() => !alive(pid), 3000, 'the hook\'s sleep to die');
			assert.deepEqual(await srv.client.ping(), {});
		} finally {
			await srv.close();
		}
		const c = (await logRecords(log)).find((r) => r.event === 'call');
		assert.equal(c.decision, 'cancelled');
		assert.equal(c.by, 'client');
		assert.equal(c.rule, 'consent read_text_file (line 2)');
		assert.equal(c.consent.means, 'hook');
		assert.equal(c.consent.answer, 'cancel');
	});

	test('the client closing while the server asks: denied, recorded as the input closed',
	    async () => {
		const out = await ownedDir();
		const log = path.join(out, 'audit.jsonl');
		const hk = await hook(`echo asked > "${out}/asked"\nsleep 60\nexit 0`);
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${hk}`, `audit ${log}`]);
		const srv = await startClient(['--policy', p]);
		const pending = call(srv, 'read_text_file', { path: 'a.txt' }).catch((e) => e);
		await until(async () => (await lines(path.join(out, 'asked'))).length > 0, 5000,
		    'the hook to be asked');
		const t0 = Date.now();
		const { code, signal } = await srv.close();
		assert.ok(Date.now() - t0 < 2000, 'the server waited for the hook before stopping');
		assert.deepEqual({ code, signal }, { code: 0, signal: null });
		await pending;
		// close() closes the server's input first (piped-input.test.mjs
		// covers the answer the call then gets).
		const recs = await logRecords(log);
		const c = recs.find((r) => r.event === 'call');
		assert.equal(c.decision, 'denied');
		assert.equal(c.by, 'consent');
		assert.equal(c.consent.answer, 'input-closed');
		assert.equal(c.reason, 'the input closed while consent was asked, which counts as no');
		assert.equal(recs.at(-1).event, 'stop');
	});
});

describe('consent rules with patterns', () => {
	test('a relative pattern asks only for the calls naming a matching path', async () => {
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file secret/**']);
		const srv = await startClient(['--policy', p]);
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'a.txt');
			const t = denied(await call(srv, 'read_text_file', { path: 'secret/s.txt' }),
			    'secret/s.txt');
			assert.equal(t, denial('nobody could be asked for consent (the client does not '
			    + 'support elicitation and the policy names no consent-hook), so it is denied',
			    'consent read_text_file secret/** (line 2)'));
			// By its absolute name, through '..' and through a symbolic
			// link, it is the same file.
			denied(await call(srv, 'read_text_file', { path: tree.p('secret/s.txt') }), 'absolute');
			denied(await call(srv, 'read_text_file', { path: 'sub/../secret/s.txt' }), 'dot-dot');
			denied(await call(srv, 'read_text_file', { path: 'to-secret' }), 'symlink');
		} finally {
			await srv.close();
		}
	});

	test('an absolute pattern, for every tool', async () => {
		const p = await policy([`allow read ${tree.root}`, `consent * ${tree.root}/sub/**`]);
		const srv = await startClient(['--policy', p]);
		try {
			const g = await call(srv, 'get_file_info', { path: 'b.txt' });
			assert.notEqual(g.isError, true, JSON.stringify(g.content));
			const t = denied(await call(srv, 'get_file_info', { path: 'sub/c.txt' }), 'sub/c.txt');
			assert.equal(t, denial('nobody could be asked for consent (the client does not '
			    + 'support elicitation and the policy names no consent-hook), so it is denied',
			    `consent * ${tree.root}/sub/** (line 2)`));
		} finally {
			await srv.close();
		}
	});

	test('a session yes is remembered per rule: another rule for the same tool asks again', async () => {
		const out = await ownedDir();
		const hk = await hook([
			`cat > /dev/null; echo "$TOOLCELL_TOOL" >> "${out}/calls"`,
			'echo "session fine"',
			'exit 0',
		].join('\n'));
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file secret/**',
		    'consent read_text_file sub/**', `consent-hook ${hk}`]);
		const srv = await startClient(['--policy', p]);
		try {
			for (const q of ['secret/s.txt', 'secret/s.txt', 'sub/c.txt', 'sub/c.txt', 'a.txt']) {
				const r = await call(srv, 'read_text_file', { path: q });
				assert.notEqual(r.isError, true, `${q}: ${JSON.stringify(r.content)}`);
			}
			// Asked once under each rule; a.txt under none.
			assert.equal((await lines(path.join(out, 'calls'))).length, 2);
		} finally {
			await srv.close();
		}
	});

	test('the hook gets the canonical paths, and the elicitation message names them', async () => {
		const out = await ownedDir();
		const hk = await hook(`cat > "${out}/stdin.json"\nexit 0`);
		const p1 = await policy([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent-hook ${hk}`]);
		let srv = await startClient(['--policy', p1]);
		try {
			readA(await call(srv, 'read_text_file', { path: 'sub/../a.txt' }), 'read');
			const doc = JSON.parse(await fsp.readFile(path.join(out, 'stdin.json'), 'utf8'));
			assert.deepEqual(doc.paths, [tree.p('a.txt')]);
			assert.deepEqual(doc.arguments, { path: 'sub/../a.txt' });
		} finally {
			await srv.close();
		}
		const h = answering({ action: 'accept', content: { allow: true } });
		const p2 = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
		srv = await startClient(['--policy', p2], { capabilities: { elicitation: {} }, elicit: h });
		try {
			readA(await call(srv, 'read_text_file', { path: 'a.txt' }), 'read');
			assert.equal(h.requests[0].params.message, `The client "${CLIENT.name}" wants to `
			    + `run the tool 'read_text_file' on "${tree.p('a.txt')}". Allow it? (asked by `
			    + 'toolcell-fs)');
		} finally {
			await srv.close();
		}
	});

	test('a path the model chose cannot pass for the server\'s words in the question', async () => {
		const h = answering({ action: 'decline' });
		const p = await policy([`allow read ${tree.root}`, 'consent read_text_file']);
		const srv = await startClient(['--policy', p], { capabilities: { elicitation: {} }, elicit: h });
		try {
			// New lines, a quote, reordering marks, a C1 control: none
			// reaches the question as such.  The file does not exist:
			// the question names its directory's real path and the name.
			const evil = 'x.txt". Allow it? (asked by toolcell-fs)\n\nThe client "safe" wants'
			    + ' to run \u202etxt.exe\u2066\u0085\u2028ok\\';
			denied(await call(srv, 'read_text_file', { path: evil }), 'evil');
			assert.equal(h.requests[0].params.message, `The client "${CLIENT.name}" wants to `
			    + `run the tool 'read_text_file' on "${tree.root}/x.txt\\". Allow it? (asked by `
			    + 'toolcell-fs)??The client \\"safe\\" wants to run ?txt.exe???ok\\\\". '
			    + 'Allow it? (asked by toolcell-fs)');
			// A long name is cut, and at most four paths are named.
			const long = `${'n'.repeat(240)}.txt`;
			denied(await call(srv, 'read_text_file', { path: long }), 'long');
			const m = h.requests[1].params.message;
			assert.ok(m.includes(`"${`${tree.root}/${long}`.slice(0, 160)}..."`), m);
		} finally {
			await srv.close();
		}
	});
});

describe('consent in the policy', () => {
	/* Runs toolcell-fs --check on |lines|; returns {status, stdout, stderr, p}. */
	async function check(lines) {
		const p = await policy(lines);
		return { ...await runServer(['--policy', p, '--check']), p };
	}

	test('--check shows the rules, the means in order, the hook and the timeout', async () => {
		const h = await hook('exit 0');
		const r = await check([`allow read ${tree.root}`, 'consent read_text_file',
		    `consent * secret/** ${tree.root}/sub`, `consent-hook ${h} --flag`,
		    'consent-by hook elicitation', 'consent-timeout 2m']);
		assert.equal(r.stderr, '');
		assert.equal(r.status, 0);
		assert.ok(r.stdout.includes([
			'consent:',
			'  read_text_file  (line 2)',
			`  every tool on paths matching secret/**, ${tree.root}/sub  (line 3)`,
			'  asked by: hook, elicitation (when the client supports it), else denied  (line 5)',
			`  hook: ${h} --flag  (line 4)`,
			'  timeout: 2m  (line 6)',
			'',
		].join('\n')), r.stdout);
	});

	test('--check: the defaults, elicitation then the hook when there is one', async () => {
		let r = await check([`allow read ${tree.root}`, 'consent read_text_file']);
		assert.equal(r.status, 0, r.stderr);
		assert.ok(r.stdout.includes([
			'consent:',
			'  read_text_file  (line 2)',
			'  asked by: elicitation (when the client supports it), else denied  (default)',
			'  timeout: 30s  (default)',
			'',
		].join('\n')), r.stdout);
		const h = await hook('exit 0');
		r = await check([`allow read ${tree.root}`, 'consent read_text_file', `consent-hook ${h}`]);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, /^ {2}asked by: elicitation \(when the client supports it\), hook, else denied {2}\(default\)$/m);
	});

	test('a hook that others may change, or that cannot run, is refused', async () => {
		const gw = await hook('exit 0', 0o775);
		const noexec = await hook('exit 0', 0o644);
		const missing = path.join(base.root, 'no-such-hook');
		const r = await check([`allow read ${tree.root}`, 'consent *', `consent-hook ${gw}`]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, `toolcell-fs: error: ${r.p}:3: consent-hook: '${gw}': writable `
		    + `by group or others; chmod go-w ${gw}\ntoolcell-fs: 1 error\n`);
		for (const [prog, msg] of [[noexec, 'not an executable file'],
		    [missing, 'No such file or directory']]) {
			const q = await check([`allow read ${tree.root}`, `consent-hook ${prog}`]);
			assert.equal(q.status, 1);
			assert.equal(q.stderr, `toolcell-fs: error: ${q.p}:2: consent-hook: '${prog}': `
			    + `${msg}\ntoolcell-fs: 1 error\n`);
		}
		const rel = await check([`allow read ${tree.root}`, 'consent-hook hooks/ask']);
		assert.equal(rel.status, 1);
		assert.equal(rel.stderr, `toolcell-fs: error: ${rel.p}:2: consent-hook: 'hooks/ask' is a `
		    + 'relative path: write an absolute path (or one starting with ~/)\n'
		    + 'toolcell-fs: 1 error\n');
	});

	test('every mistake in the consent lines is reported, with its line', async () => {
		const r = await check([
			`allow read ${tree.root}`,
			'consent nosuch',
			'consent',
			'consent-by hook',
			'consent-by elicitation',
			'consent-timeout 500ms',
			'consent-timeout 11m',
			'consent read_text_file ../up',
		]);
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		const tools = FS_POLICY_NAMES.join(', ');
		assert.equal(r.stderr, [
			`toolcell-fs: error: ${r.p}:2: consent: toolcell-fs has no tool 'nosuch' (it has: ${tools})`,
			`toolcell-fs: error: ${r.p}:3: consent: missing the tool ('*' for every tool)`,
			`toolcell-fs: error: ${r.p}:5: consent-by: already set at line 4`,
			`toolcell-fs: error: ${r.p}:6: consent-timeout: '500ms' is out of range: 1s to 10m`,
			`toolcell-fs: error: ${r.p}:7: consent-timeout: '11m' is out of range: 1s to 10m`,
			`toolcell-fs: error: ${r.p}:8: consent: '../up': a pattern cannot contain '..'`,
			`toolcell-fs: error: ${r.p}: consent-by hook (line 4): no 'consent-hook PROGRAM' line names the hook`,
			'toolcell-fs: 7 errors',
			'',
		].join('\n'));
	});

	test('consent-by: an unknown means, and one named twice', async () => {
		const r = await check([`allow read ${tree.root}`, 'consent-by elicitation telepathy elicitation']);
		assert.equal(r.status, 1);
		assert.equal(r.stderr, [
			`toolcell-fs: error: ${r.p}:2: consent-by: unknown means 'telepathy' (known: `
			    + 'elicitation, hook; a call no means answers is denied)',
			`toolcell-fs: error: ${r.p}:2: consent-by: 'elicitation' named twice`,
			'toolcell-fs: 2 errors',
			'',
		].join('\n'));
	});
});
