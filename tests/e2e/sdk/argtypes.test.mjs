// argtypes.test.mjs: the argument types the shell and SQLite servers
// need (a number, null, an array of scalars, a map of strings), through
// the official client: tools/list shows schemas the client takes, a call
// goes through the check and the child and comes back as the handler
// read it, and what the check refuses comes back as a tool error that
// says why.  The test-only hostile server carries the one tool that
// takes them all, echo_args.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { BUILD, call, makeScratch, makeTree, startServer, textOf } from './lib.mjs';

const HOSTILE = path.join(BUILD, 'tests', 'toolcell-hostile');

let tree;
let srv;

before(async () => {
	tree = await makeTree({ 'a.txt': 'a\n' });
	srv = await startServer([tree.root], { server: HOSTILE });
});

after(async () => {
	await srv?.close();
	await tree?.cleanup();
});

/* Asserts no "type" in |schema| is a list, at any depth. */
function noTypeLists(schema, where = 'inputSchema') {
	if (schema === null || typeof schema !== 'object')
		return;
	assert.ok(!Array.isArray(schema.type), `${where}: type is a list`);
	for (const [k, v] of Object.entries(schema))
		noTypeLists(v, `${where}.${k}`);
}

describe('echo_args', () => {
	test('tools/list: the official client takes its schema', async () => {
		const { tools } = await srv.client.listTools();
		const t = tools.find((x) => x.name === 'echo_args');
		assert.ok(t, 'echo_args is listed');
		const p = t.inputSchema.properties;
		assert.deepEqual(p.ratio, { type: 'number', minimum: 0, maximum: 1, default: 0.5,
		    description: 'A number from 0 to 1.' });
		assert.equal(p.cwd.type, 'string');
		assert.equal(p.cwd.nullable, true);
		assert.equal(p.params.type, 'array');
		assert.equal(p.params.maxItems, 16);
		assert.deepEqual(Object.keys(p.params.items), ['anyOf']);
		assert.deepEqual(p.params.items.anyOf.map((b) => b.type), ['string', 'number', 'boolean', 'null']);
		assert.equal(p.params.items.anyOf[0].maxLength, 64);
		assert.equal(p.params.items.anyOf[1].maximum, 2 ** 53 - 1);
		assert.equal(p.env.type, 'object');
		assert.equal(p.env.maxProperties, 8);
		assert.deepEqual(p.env.propertyNames, { minLength: 1, maxLength: 64,
		    pattern: '^[A-Za-z_][A-Za-z0-9_]*$' });
		assert.deepEqual(p.env.additionalProperties, { type: 'string', maxLength: 256 });
		noTypeLists(t.inputSchema);
	});

	test('a call round-trips each type', async () => {
		const r = await call(srv, 'echo_args', {
			ratio: 0.25,
			cwd: null,
			params: [2 ** 53 - 1, -0.5, 'it\'s', true, null, false, ''],
			env: { LANG: 'C.UTF-8', HOME: '/tmp/h', _X9: '' },
		});
		assert.equal(r.isError, undefined, textOf(r));
		const s = r.structuredContent;
		assert.equal(s.ratio, 0.25);
		assert.equal(s.cwd, null);
		assert.equal(s.nparams, 7);
		assert.deepEqual(s.params, [
			{ kind: 'integer', value: 2 ** 53 - 1 },
			{ kind: 'real', value: -0.5 },
			{ kind: 'string', value: 'it\'s', bytes: 4 },
			{ kind: 'boolean', value: true },
			{ kind: 'null', value: null },
			{ kind: 'boolean', value: false },
			{ kind: 'string', value: '', bytes: 0 },
		]);
		assert.deepEqual(s.env, [['LANG', 'C.UTF-8'], ['HOME', '/tmp/h'], ['_X9', '']]);
		assert.equal(s.home, '/tmp/h');
		assert.equal(textOf(r), '7 parameters, 3 variables\n');
	});

	test('absent arguments: the default, no items, no entries', async () => {
		const r = await call(srv, 'echo_args', {});
		assert.equal(r.isError, undefined, textOf(r));
		assert.deepEqual(r.structuredContent, { ratio: 0.5, nparams: 0, params: [], env: [] });
		const s = await call(srv, 'echo_args', { cwd: '/x' });
		assert.equal(s.structuredContent.cwd, '/x');
	});

	test('what the check refuses is a tool error that says why', async () => {
		const cases = [
			[{ ratio: 1.5 }, "argument 'ratio': must be between 0 and 1"],
			[{ ratio: '0.5' }, "argument 'ratio': expected a number, got a string"],
			[{ params: [1, [2]] }, "argument 'params'[1]: expected a string, number, boolean or null, got an array"],
			[{ params: [2 ** 53] }, "argument 'params'[0]: 9007199254740992 is too large to be held exactly (more than 2^53 - 1); send it as a string"],
			[{ params: Array(17).fill(0) }, "argument 'params': more than 16 items"],
			[{ params: ['x'.repeat(65)] }, "argument 'params'[0]: longer than 64 bytes"],
			[{ env: { '1X': 'v' } }, "argument 'env': key '1X': not a name (letters, digits and '_', not starting with a digit)"],
			[{ env: { A: 1 } }, "argument 'env': value of 'A': expected a string, got a number"],
			[{ env: { A: null } }, "argument 'env': value of 'A': expected a string, got null"],
			[{ env: null }, "argument 'env': expected an object, got null"],
			[{ cwd: 5 }, "argument 'cwd': expected a string, got a number"],
		];
		for (const [args, why] of cases) {
			const r = await call(srv, 'echo_args', args);
			assert.equal(r.isError, true, `${JSON.stringify(args)}: not refused`);
			assert.ok(textOf(r).includes(why), `${JSON.stringify(args)}: ${textOf(r)}`);
		}
		// The server still serves.
		const ok = await call(srv, 'echo_args', { params: [1] });
		assert.equal(ok.isError, undefined);
	});
});

describe('a consent hook reads the arguments as they were sent', () => {
	test('numbers reach it exactly, not rounded to 15 digits', async () => {
		const base = await makeScratch('argtypes');
		const out = await base.ownedDir();
		const h = base.unique('hook', '.sh');
		await fsp.writeFile(h, `#!/bin/sh\ncat > "${out}/stdin.json"\nexit 0\n`);
		await fsp.chmod(h, 0o755);
		const p = await base.policy([`allow read ${tree.root}`, 'consent echo_args',
		    'consent-by hook', `consent-hook ${h}`]);
		const hs = await startServer(['--policy', p], { server: HOSTILE });
		try {
			const params = [2 ** 53 - 1, 0.1 + 0.2, -(2 ** 53 - 1), 1e-300];
			const r = await call(hs, 'echo_args', { ratio: 0.1 + 0.2, params });
			assert.equal(r.isError, undefined, textOf(r));
			const doc = JSON.parse(await fsp.readFile(path.join(out, 'stdin.json'), 'utf8'));
			assert.deepEqual(doc.arguments.params, params);
			assert.equal(doc.arguments.ratio, 0.30000000000000004);
			assert.equal(doc.tool, 'echo_args');
		} finally {
			await hs.close();
			await base.cleanup();
		}
	});
});
