// shell-network.test.mjs: the network toolcell-shell's programs have, end
// to end with the official MCP client.  The test opens two listeners on
// 127.0.0.1 and has a program connect to them: without a grant it reaches
// neither (a network namespace of its own, socket() refused); with
// "network connect PORT" it reaches that port and not the other one
// (Landlock's TCP rules; no network namespace, so this machine's loopback
// is the host's, which is what a grant means); with "network on" both.
// --check and the instructions say which ports.  Unix sockets stay
// refused under a grant too, and a socket pair is a stream or seqpacket
// one (python3, where it is here).
//
// The program that connects is bash's /dev/tcp where /bin/bash exists,
// else python3's socket module, else the cases are skipped with the
// reason.  With TOOLCELL_AS=nobody the server runs as nobody.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
	BUILD, call, logRecords, makeScratch, makeTree, runServer, startServer, textOf,
} from './lib.mjs';

const SHELL = path.join(BUILD, 'toolcell-shell');

/* A program that connects to 127.0.0.1:PORT and prints the line it reads;
 * null when this machine has none the test knows. */
function connector() {
	if (existsSync('/bin/bash'))
		return {
			program: 'program bash',
			argv: (port) => ['bash', '-c',
			    `exec 3<>/dev/tcp/127.0.0.1/${port} && read -r line <&3 && echo "$line"`],
		};
	for (const dir of ['/usr/local/bin', '/usr/bin', '/bin'])
		if (existsSync(path.join(dir, 'python3')))
			return {
				program: 'program python3',
				argv: (port) => ['python3', '-c',
				    'import socket, sys\n'
				    + 's = socket.create_connection(("127.0.0.1", int(sys.argv[1])))\n'
				    + 'print(s.makefile().readline().strip())\n', String(port)],
			};
	return null;
}

const CONNECT = connector();
const SKIP = CONNECT ? false : 'neither /bin/bash nor python3 is here to connect with';

/* A listener on 127.0.0.1 that greets each connection with "hello PORT". */
async function listen() {
	const srv = net.createServer((c) => c.end(`hello ${srv.address().port}\n`));
	await new Promise((resolve, reject) => {
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', resolve);
	});
	return srv;
}

let tree;
let named;
let other;
const scratch = await makeScratch('shell-network');

before(async () => {
	tree = await makeTree({ 'a.txt': 'alpha\n' });
	named = await listen();
	other = await listen();
});

after(async () => {
	named?.close();
	other?.close();
	await tree?.cleanup();
	await scratch.cleanup();
});

const port = (l) => l.address().port;

/* A read-only policy for the connecting program; |network| is a
 * "network ..." line or none, in the [shell] section (a shared setting
 * may be written in a server's own section). */
function policy(network) {
	return scratch.policy([`allow read ${tree.root}`, '[shell]', CONNECT.program,
	    ...(network ? [network] : [])]);
}

/* What the program prints connecting to |l|, or the error it gives. */
async function connectTo(srv, l) {
	const r = await call(srv, 'run_command', { argv: CONNECT.argv(port(l)) });
	assert.notEqual(r.isError, true, textOf(r));
	return r.structuredContent;
}

async function withServer(network, fn) {
	const srv = await startServer(['--policy', await policy(network)], { server: SHELL });
	try {
		await fn(srv);
	} finally {
		await srv.close();
	}
}

describe('the network a policy grants', { skip: SKIP }, () => {
	test('no grant: no connection, not even to this machine', async () => {
		await withServer(null, async (srv) => {
			for (const l of [named, other]) {
				const r = await connectTo(srv, l);
				assert.notEqual(r.exit_code, 0, JSON.stringify(r));
				assert.doesNotMatch(r.stdout, /hello/);
			}
			assert.match(srv.initResult.instructions, /Programs have no network/);
		});
	});

	test('network connect PORT: that port, and no other', async () => {
		await withServer(`network connect ${port(named)}`, async (srv) => {
			const yes = await connectTo(srv, named);
			assert.equal(yes.exit_code, 0, JSON.stringify(yes));
			assert.equal(yes.stdout, `hello ${port(named)}\n`);
			const no = await connectTo(srv, other);
			assert.notEqual(no.exit_code, 0, JSON.stringify(no));
			assert.doesNotMatch(no.stdout, /hello/);
			assert.match(no.stderr, /Permission denied|PermissionError/);
			const ins = srv.initResult.instructions;
			assert.ok(ins.includes(`TCP connections to these ports only, at any address `
			    + `(this machine's own included): ${port(named)}.`), ins);
			assert.match(ins, /no UDP/);
		});
	});

	test('network on: every port', async () => {
		await withServer('network on', async (srv) => {
			for (const l of [named, other]) {
				const r = await connectTo(srv, l);
				assert.equal(r.exit_code, 0, JSON.stringify(r));
				assert.equal(r.stdout, `hello ${port(l)}\n`);
			}
			assert.match(srv.initResult.instructions, /share this machine's network/);
		});
	});
});

/* python3's path by the server's fixed PATH, or null. */
const PYTHON = ['/usr/local/bin', '/usr/bin', '/bin'].map((d) => path.join(d, 'python3'))
    .find((p) => existsSync(p)) ?? null;

describe('Unix sockets, with a network or without', { skip: PYTHON ? false : 'no python3 here' }, () => {
	// A socket of a pair that is not a stream could send to any socket of
	// the host by its path (sendto() with an address), which no network
	// rule holds: such pairs are refused; a stream pair, a pipe between a
	// call's own processes, is not; nor is socket(AF_UNIX) allowed.
	const probe = 'import socket\n'
	    + 'def tryit(f):\n'
	    + '    try:\n'
	    + '        f()\n'
	    + '        return "ok"\n'
	    + '    except PermissionError:\n'
	    + '        return "refused"\n'
	    + 'print(tryit(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)),\n'
	    + '    tryit(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)),\n'
	    + '    tryit(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)),\n'
	    + '    tryit(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)))\n';

	for (const network of [null, 'network on']) {
		test(`${network ?? 'no network'}: stream pairs only, no socket of the host`, async () => {
			const p = await scratch.policy([`allow read ${tree.root}`, '[shell]',
			    'program python3', ...(network ? [network] : [])]);
			const srv = await startServer(['--policy', p], { server: SHELL });
			try {
				const r = await call(srv, 'run_command', { argv: ['python3', '-c', probe] });
				assert.notEqual(r.isError, true, textOf(r));
				assert.equal(r.structuredContent.stdout, 'ok ok refused refused\n',
				    JSON.stringify(r.structuredContent));
			} finally {
				await srv.close();
			}
		});
	}
});

describe('the audit log', () => {
	test('the start record names the namespaces in force: no network namespace under a grant', async () => {
		const starts = [];
		for (const network of [null, 'network connect 443']) {
			const log = path.join(await scratch.ownedDir(), 'audit.jsonl');
			const p = await scratch.policy([`allow read ${tree.root}`, `audit ${log}`,
			    ...(network ? [network] : []), '[shell]', 'program ls']);
			const srv = await startServer(['--policy', p], { server: SHELL });
			await srv.close();
			starts.push((await logRecords(log)).find((x) => x.event === 'start'));
		}
		const [none, granted] = starts.map((x) => x.namespaces);
		if (none.length === 0) {
			assert.deepEqual(granted, [], 'no namespaces here at all');
			return;
		}
		assert.deepEqual(none, ['user, net, pid, ipc, uts for programs']);
		assert.deepEqual(granted, ['user, pid, ipc, uts for programs']);
	});
});

describe('what --check says', () => {
	test('the ports, and that this machine\'s own services on them are reached', async () => {
		const r = await runServer(['--policy',
		    await scratch.policy([`allow read ${tree.root}`, 'network connect 8443 443',
		        '[shell]', 'program ls']), '--check'], SHELL);
		assert.equal(r.status, 0, r.stderr);
		assert.match(r.stdout, /^network: connect 443 8443 {2}\(line 2\)$/m);
		assert.match(r.stderr, /:2: network connect: programs may connect to TCP ports 443, 8443 at any address, this machine's own services on them included/);
		assert.match(r.stderr, /no DNS: names resolve from \/etc\/hosts only/);
	});

	test('a bad port is refused with the line', async () => {
		const r = await runServer(['--policy',
		    await scratch.policy([`allow read ${tree.root}`, '[shell]', 'program ls',
		        'network connect example.com:443']), '--check'], SHELL);
		assert.equal(r.status, 1, r.stderr);
		assert.match(r.stderr, /:4: network connect: 'example\.com:443' is not a port \(a number from 1 to 65535\)/);
	});
});
