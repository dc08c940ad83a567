// sqlite-zygote.test.mjs: toolcell-sqlite's calls come from a zygote
// (common/sandbox/zygote.c), whose children inherit its connections and
// its memory: what one call does or draws must not carry into the next.
//
// With TOOLCELL_AS=nobody the server runs as nobody; the databases and
// their directories are then nobody's.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { BUILD, call, makeScratch, serverIds, startServer, textOf } from './lib.mjs';

const SQLITE = path.join(BUILD, 'toolcell-sqlite');
const scratch = await makeScratch('sqlite-zygote');

after(() => scratch.cleanup());

async function newDb(name = 'app.db') {
	const dir = scratch.unique('db');
	await fsp.mkdir(dir);
	const file = path.join(dir, name);
	await fsp.writeFile(file, '');
	const { uid, gid } = serverIds();
	await fsp.chown(dir, uid, gid);
	await fsp.chown(file, uid, gid);
	return file;
}

function start(dbs) {
	return scratch.policy(['[sqlite]', ...dbs]).then((p) =>
	    startServer(['--policy', p], { server: SQLITE }));
}

async function ok(srv, name, args) {
	const r = await call(srv, name, args);
	assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
	return r;
}

async function rows(srv, sql, db = 'main') {
	return (await ok(srv, 'query', { database: db, sql })).structuredContent.rows;
}

describe('calls forked from one zygote', () => {
	test('each call draws its own randomness', async () => {
		const file = await newDb();
		const srv = await start([`database main ${file} read-write`]);
		try {
			await ok(srv, 'execute', { database: 'main', sql: 'CREATE TABLE t(a)' });
			const seen = [];
			for (let i = 0; i < 4; i++)
				seen.push(JSON.stringify(await rows(srv, 'SELECT hex(randomblob(16)) AS r, random() AS n')));
			assert.equal(new Set(seen).size, seen.length, `the same randomness twice: ${seen.join(' ')}`);
		} finally {
			await srv.close();
		}
	});
});
