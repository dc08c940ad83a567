# toolcell: small, confined MCP servers.  Plain GNU make; see README.md.
#
#   make            build everything into $(BUILD)
#   make demo       build, then a scripted session with the official client
#   make test       build, then every test (unit, protocol, end-to-end)
#   make check      the same suite built with ASan and UBSan in build-san
#   make bench      what a confined call costs, layer by layer; then
#                   toolcell-fs against the reference server and
#                   toolcell-shell against shell servers, from npm
#                   (BENCH_QUICK=1 for a short smoke run)
#   make test-hosts Claude Code and Codex CLI, from npm, run toolcell's
#                   servers against a local stand-in for their model APIs:
#                   what their models receive (not part of make test)
#   make lint       clang-format, banned calls, mandoc
#   make fuzz       the harnesses of tests/fuzz, built with clang's libFuzzer
#                   in build-fuzz, FUZZ_SECONDS (10) each; FUZZ_TARGETS picks
#                   some, FUZZ_KEEP=1 merges what they found into the corpora
#   make install    binaries, man pages, consent hooks and example policies
#                   under $(DESTDIR)$(PREFIX) (PREFIX=$HOME/.local: no root)

BUILD	?= build
PREFIX	?= /usr/local

# Libraries come from pkg-config.  PKGS are those of common/, which every
# binary links; a server names its own in servers/NAME/deps.mk as
# NAME_PKGS, and only its binary links them (toolcell-fs PCRE2,
# toolcell-sqlite SQLite), so that no binary carries a library it does
# not use.
PKGS	 = libseccomp libcap libcjson nettle
SERVERS	 = fs shell sqlite
include $(wildcard $(SERVERS:%=servers/%/deps.mk))

WARN	 = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wmissing-declarations -Wpointer-arith \
	   -Wwrite-strings -Wvla -Wformat=2 -Wformat-nonliteral \
	   -Wimplicit-fallthrough -Wundef -Wcast-qual -Wnull-dereference
HARDEN	 = -D_FORTIFY_SOURCE=3 -fstack-protector-strong \
	   -fstack-clash-protection -fPIE -ftrivial-auto-var-init=zero
ifeq ($(shell uname -m),x86_64)
HARDEN	+= -fcf-protection
endif
LDHARDEN = -pie -Wl,-z,relro,-z,now,-z,noexecstack -Wl,--as-needed
SAN	 = -fsanitize=address,undefined -fno-sanitize-recover=all \
	   -fno-omit-frame-pointer

CFLAGS	?= -O2 -g
ifeq ($(SANITIZE),1)
HARDEN	:= $(filter-out -D_FORTIFY_SOURCE=3,$(HARDEN)) -DTC_SANITIZE
CFLAGS	+= $(SAN)
LDFLAGS	+= $(SAN)
endif
ifeq ($(DEVELOPER),1)
WARN	+= -Werror
endif
# The fuzz build (make fuzz, with clang): sanitizers and libFuzzer's
# coverage; clang 14 takes -ftrivial-auto-var-init=zero only behind a flag,
# and fuzzing is better off without it.
ifeq ($(FUZZ),1)
HARDEN	:= $(filter-out -D_FORTIFY_SOURCE=3 -ftrivial-auto-var-init=zero,\
	   $(HARDEN)) -DTC_SANITIZE
CFLAGS	+= $(SAN) -fsanitize=fuzzer-no-link
LDFLAGS	+= $(SAN)
endif

# Compiler and linker flags of the libraries come from pkg-config, through a
# generated file; making it checks for (and, as root, installs) what is
# missing, and stops with the command to run otherwise.
ifeq ($(filter clean lint,$(MAKECMDGOALS)),)
-include $(BUILD)/config.mk
endif

ALL_CFLAGS = -std=c17 -D_GNU_SOURCE -MMD -MP $(WARN) $(HARDEN) \
	     -Icommon $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDHARDEN) $(LDFLAGS)
LDLIBS	+= $(PKG_LIBS)

COMMON_SRC = $(wildcard common/*/*.c)
COMMON_OBJ = $(COMMON_SRC:%.c=$(BUILD)/%.o)
LIB	   = $(BUILD)/libtoolcell.a

BINS	   = $(SERVERS:%=$(BUILD)/toolcell-%)

# The audit log's reader: verify, tail, summary.
AUDIT	   = $(BUILD)/toolcell-audit

BENCH	   = $(BUILD)/bench-runner

# The least a process per call costs, beside a call served in process
# (bench/fork-floor.c).
FORKFLOOR  = $(BUILD)/bench/fork-floor

UNIT_SRC   = $(wildcard tests/unit/test-*.c)
UNIT_BINS  = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# A server with hostile tools, for the containment tests only: built with
# the tests, never installed.
HOSTILE	   = $(BUILD)/tests/toolcell-hostile

# A server that takes each extension point of struct tc_server its own
# way, for the tests only: built with the tests, never installed.
SAMPLE	   = $(BUILD)/tests/toolcell-sample

# Writes audit logs for tests/e2e/audit/run.sh; never installed.
MKLOG	   = $(BUILD)/tests/audit-mklog

# Runs a command with its stdin on a terminal, for the SDK tests; never
# installed.
ONTTY	   = $(BUILD)/tests/on-tty

# Tries to push characters into a terminal (TIOCSTI, TIOCLINUX), for the
# adversarial tests of toolcell-shell; never installed.
TIOCSTI	   = $(BUILD)/tests/tiocsti

# Runs a command on which the kernel refuses Landlock's calls, for the
# tests of --allow-degraded landlock; never installed.
NOLANDLOCK = $(BUILD)/tests/no-landlock

# The fuzz harnesses (tests/fuzz/fuzz-NAME.c): replay-NAME runs a corpus
# through one with the normal compiler, for make test; fuzz-NAME is the
# libFuzzer binary, for make fuzz.
FUZZ_NAMES = $(patsubst tests/fuzz/fuzz-%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
REPLAY	   = $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay-%)
# The audit readers' shared part, without its main().
AUDIT_CLI  = $(BUILD)/tests/fuzz/audit-cli.o \
	     $(patsubst %.c,$(BUILD)/%.o,$(filter-out audit/toolcell-audit.c,\
	     $(wildcard audit/*.c)))

all: $(BINS) $(AUDIT) $(UNIT_BINS) $(BENCH) $(FORKFLOOR) $(HOSTILE) \
     $(SAMPLE) $(MKLOG) $(ONTTY) $(TIOCSTI) $(NOLANDLOCK) $(REPLAY)

$(BUILD)/config.mk: mk/deps.sh $(wildcard $(SERVERS:%=servers/%/deps.mk))
	@mkdir -p $(BUILD)
	@sh mk/deps.sh build "$(PKGS)" $(foreach s,$(SERVERS),$(s):"$($(s)_PKGS)") \
	    > $@.tmp && mv $@.tmp $@

$(BUILD)/%.o: %.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(COMMON_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

define server_rule
$(BUILD)/toolcell-$(1): $(patsubst %.c,$(BUILD)/%.o,$(wildcard servers/$(1)/*.c)) $(LIB)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $$^ $$(PKG_LIBS_$(1)) $$(LDLIBS)
endef
$(foreach s,$(SERVERS),$(eval $(call server_rule,$(s))))

$(AUDIT): $(patsubst %.c,$(BUILD)/%.o,$(wildcard audit/*.c)) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/test-%: $(BUILD)/tests/unit/test-%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# The policy file's tests read toolcell-fs's [fs] section, as it does;
# the policy fuzzer toolcell-shell's [shell] section too.
$(BUILD)/tests/test-policyfile $(BUILD)/tests/fuzz/replay-policy \
    $(BUILD)/fuzz/fuzz-policy: $(BUILD)/servers/fs/fs_policy.o
$(BUILD)/tests/fuzz/replay-policy $(BUILD)/fuzz/fuzz-policy: \
    $(BUILD)/servers/shell/shell_policy.o \
    $(BUILD)/servers/shell/shell_repos.o \
    $(BUILD)/servers/shell/shell_rules.o
# toolcell-shell's [shell] section and argument rules, without the server
# (linked ahead of the library, whose members they use).
$(BUILD)/tests/test-shellrules: $(BUILD)/tests/unit/test-shellrules.o \
    $(BUILD)/servers/shell/shell_policy.o \
    $(BUILD)/servers/shell/shell_repos.o \
    $(BUILD)/servers/shell/shell_rules.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
# How toolcell-shell reads a submodule's core.worktree (test-shellrepos).
$(BUILD)/tests/unit/test-shellrepos.o: ALL_CFLAGS += -Iservers/shell
$(BUILD)/tests/test-shellrepos: $(BUILD)/tests/unit/test-shellrepos.o \
    $(BUILD)/servers/shell/shell_repos.o \
    $(BUILD)/servers/shell/shell_policy.o \
    $(BUILD)/servers/shell/shell_rules.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
# The confinement tests run the servers' own profiles.
PROFILE_OBJ = $(BUILD)/servers/fs/fs_profile.o \
	      $(BUILD)/tests/hostile/hostile_profile.o
PROFILE_TESTS = $(patsubst %,$(BUILD)/tests/test-%,seccomp confine sandbox)
$(PROFILE_TESTS): $(BUILD)/tests/test-%: $(BUILD)/tests/unit/test-%.o \
    $(PROFILE_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) $(TEST_WRAP) -o $@ $^ $(LDLIBS)
# test-sandbox makes a keeper slow to become one: tc_keeper_become()
# wrapped.
$(BUILD)/tests/test-sandbox: TEST_WRAP = -Wl,--wrap=tc_keeper_become

# The runner's tests (test-shellrun) run toolcell-shell's shell_run.c
# alone, without the rest of the server; ppoll() and the clock wrapped, so
# that a case makes the runner late at the one moment it means to,
# read(), so that a pipe never runs dry from then on, pipe2(), so that the
# pipes made before the call can be refused, and fcntl(), to see a pipe
# made larger.
$(BUILD)/tests/unit/test-shellrun.o: ALL_CFLAGS += -Iservers/shell
$(BUILD)/tests/test-shellrun: $(BUILD)/tests/unit/test-shellrun.o \
    $(BUILD)/servers/shell/shell_run.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -Wl,--wrap=ppoll,--wrap=tc_now_ms,--wrap=read \
	    -Wl,--wrap=pipe2,--wrap=fcntl,--wrap=getrandom -o $@ $^ $(LDLIBS)

# The string scans' differential test (test-jsoncount) includes
# shell_run.c for its static functions, so links no shell_run.o.
$(BUILD)/tests/unit/test-jsoncount.o: ALL_CFLAGS += -Iservers/shell

# The scratch tree's removal (test-shellscratch), with unlinkat() wrapped
# so that the test changes the tree at the one moment it means to, and
# fstatfs() and clock_gettime() so that the sweep of bases left sees the
# file system type and the boot a case names.
$(BUILD)/tests/unit/test-shellscratch.o: ALL_CFLAGS += -Iservers/shell
$(BUILD)/tests/test-shellscratch: $(BUILD)/tests/unit/test-shellscratch.o \
    $(BUILD)/servers/shell/shell_scratch.o \
    $(BUILD)/servers/shell/shell_policy.o \
    $(BUILD)/servers/shell/shell_rules.o \
    $(BUILD)/servers/shell/shell_profile.o \
    $(BUILD)/servers/shell/shell_repos.o \
    $(BUILD)/servers/shell/shell_run.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -Wl,--wrap=unlinkat,--wrap=fstatfs \
	    -Wl,--wrap=clock_gettime -o $@ $^ $(LDLIBS)

# toolcell-sqlite's profile fails closed (test-sqlprofile): its [sqlite]
# section and profile (with the connections its ahead hook opens), with
# SQLite, without the rest of the server.
$(BUILD)/tests/unit/test-sqlprofile.o: ALL_CFLAGS += -Iservers/sqlite
$(BUILD)/tests/test-sqlprofile: $(BUILD)/tests/unit/test-sqlprofile.o \
    $(BUILD)/servers/sqlite/sqlite_policy.o \
    $(BUILD)/servers/sqlite/sqlite_profile.o \
    $(BUILD)/servers/sqlite/sqlite_ahead.o \
    $(BUILD)/servers/sqlite/sqlite_conn.o \
    $(BUILD)/servers/sqlite/sqlite_kind.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS_sqlite) $(LDLIBS)

# toolcell-sqlite's guard (sqlite_kind.c, sqlite_conn.c) alone, without
# the server, against the real SQLite: its tests and its fuzz harness.
# SQLite's flags are the server's (servers/sqlite/deps.mk) once it is one
# of SERVERS; plain -lsqlite3 until then.
SQLITE_LIBS = $(or $(PKG_LIBS_sqlite),-lsqlite3)
SQ_GUARD    = $(BUILD)/servers/sqlite/sqlite_kind.o \
	      $(BUILD)/servers/sqlite/sqlite_conn.o
$(BUILD)/tests/test-sqlkind $(BUILD)/tests/test-sqlconn: $(BUILD)/tests/%: \
    $(BUILD)/tests/unit/%.o $(SQ_GUARD) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(SQLITE_LIBS) $(LDLIBS)
$(BUILD)/tests/fuzz/replay-sqlkind: $(BUILD)/tests/fuzz/fuzz-sqlkind.o \
    $(BUILD)/tests/fuzz/replay.o $(SQ_GUARD) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(SQLITE_LIBS) $(LDLIBS)
$(BUILD)/fuzz/fuzz-sqlkind: $(BUILD)/tests/fuzz/fuzz-sqlkind.o $(SQ_GUARD) \
    $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(SQLITE_LIBS) \
	    $(LDLIBS)

$(BUILD)/tests/unit/%.o: tests/unit/%.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/lib -c -o $@ $<

$(BUILD)/tests/fuzz/%.o: tests/fuzz/%.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/lib -Iaudit -c -o $@ $<

$(BUILD)/tests/fuzz/audit-cli.o: audit/toolcell-audit.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Dmain=toolcell_audit_main \
	    -Wno-missing-prototypes -Wno-missing-declarations -c -o $@ $<

$(BUILD)/tests/fuzz/replay-audit: $(BUILD)/tests/fuzz/fuzz-audit.o \
    $(BUILD)/tests/fuzz/replay.o $(AUDIT_CLI) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# The library last: the objects a target adds after it (replay-policy's
# [shell] section) use its members too.
$(BUILD)/tests/fuzz/replay-%: $(BUILD)/tests/fuzz/fuzz-%.o \
    $(BUILD)/tests/fuzz/replay.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter-out $(LIB),$^) $(LIB) $(LDLIBS)

$(BUILD)/fuzz/fuzz-audit: $(BUILD)/tests/fuzz/fuzz-audit.o $(AUDIT_CLI) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(BUILD)/fuzz/fuzz-%: $(BUILD)/tests/fuzz/fuzz-%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $(filter-out $(LIB),$^) \
	    $(LIB) $(LDLIBS)

$(HOSTILE): $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/hostile/*.c)) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(SAMPLE): $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/sample/*.c)) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(MKLOG): $(BUILD)/tests/e2e/audit/mklog.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(ONTTY): $(BUILD)/tests/e2e/on-tty.o
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

$(TIOCSTI): $(BUILD)/tests/shell/tiocsti.o
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

$(NOLANDLOCK): $(BUILD)/tests/shell/no-landlock.o
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# bench-runner times each confinement layer by switching it off: its own
# build of the confinement steps has that switch (-DTC_BENCH); the library
# the servers link has none.
BENCH_OBJ = $(BUILD)/bench/bench-runner.o \
	    $(patsubst %,$(BUILD)/bench/common/sandbox/%.o,confine spawn child) \
	    $(BUILD)/servers/fs/fs_profile.o
$(BUILD)/bench/%.o: ALL_CFLAGS += -DTC_BENCH

$(BUILD)/bench/common/%.o: common/%.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BENCH): $(BENCH_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(FORKFLOOR): $(BUILD)/bench/fork-floor.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS_sqlite)

# What a call's pids cgroup costs a root server's keepers
# (bench/pids-keeper.c); made when asked for.
$(BUILD)/bench/pids-keeper: $(BUILD)/bench/pids-keeper.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# The pinned sets of npm packages, each installed as its lock file says
# (npm ci), before the rules that use them: the official MCP client for
# the end-to-end tests, the demo and the bench; the real host CLIs
# (about 800 MB from the npm registry, so not part of make test; see
# docs/hosts.md); and the official MCP conformance suite and inspector,
# with a Node 22 of their own (about 330 MB, not part of make test
# either; see docs/testing.md).
SDK_DIR	    = tests/e2e/sdk
HOSTS_DIR   = tests/hosts
CONF_DIR    = tests/conformance
SDK_STAMP   = $(SDK_DIR)/node_modules/.package-lock.json
HOSTS_STAMP = $(HOSTS_DIR)/node_modules/.package-lock.json
CONF_STAMP  = $(CONF_DIR)/node_modules/.package-lock.json

$(SDK_STAMP) $(HOSTS_STAMP) $(CONF_STAMP): %/node_modules/.package-lock.json: \
    %/package.json %/package-lock.json
	@sh mk/deps.sh node
	cd $* && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

bench: all $(SDK_STAMP)
	$(BENCH) $(BENCH_N)
	node bench/mcp-roundtrip.mjs $(BUILD)
	node bench/fs-vs-ref.mjs $(BUILD)
	node bench/shell-vs-anchors.mjs $(BUILD)
	@sh mk/deps.sh bench
	node bench/sqlite-vs-anchors.mjs $(BUILD)
	$(FORKFLOOR)

demo: all $(SDK_STAMP)
	@node tests/e2e/demo.mjs $(BUILD)

test: all $(SDK_STAMP)
	@BUILD=$(BUILD) sh tests/run.sh

check sanitize:
	$(MAKE) BUILD=build-san SANITIZE=1 test

# Builds the harnesses with clang and libFuzzer and runs each; new corpus
# entries stay in build-fuzz/corpus unless FUZZ_KEEP=1.
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 10
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_CC	     ?= clang

fuzz:
	@sh mk/deps.sh fuzz $(FUZZ_CC)
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) FUZZ=1 \
	    $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/fuzz-%)
	@FUZZ_KEEP=$(FUZZ_KEEP) sh tests/fuzz/run.sh $(FUZZ_BUILD) \
	    $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Claude Code and Codex CLI against a stand-in for their model APIs.
test-hosts: all $(SDK_STAMP) $(HOSTS_STAMP)
	@BUILD=$(BUILD) node --test --test-reporter=tap $(HOSTS_DIR)/hosts.test.mjs

# The official conformance suite and the inspector's schema lint.
conformance: all $(SDK_STAMP) $(CONF_STAMP)
	@sh $(CONF_DIR)/run.sh $(BUILD)

lint:
	@sh mk/lint.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BINS) $(AUDIT) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(wildcard servers/*/*.1) audit/toolcell-audit.1 \
	    $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard servers/*/*.5) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -d $(DESTDIR)$(PREFIX)/share/toolcell/hooks \
	    $(DESTDIR)$(PREFIX)/share/toolcell/examples
	install -m 755 policy/hooks/desktop policy/hooks/allow-read-only \
	    policy/hooks/ask-tty $(DESTDIR)$(PREFIX)/share/toolcell/hooks/
	install -m 644 policy/examples/*.policy \
	    $(DESTDIR)$(PREFIX)/share/toolcell/examples/

clean:
	rm -rf build build-san build-fuzz

.PHONY: all bench conformance demo test test-hosts check sanitize fuzz lint \
	install clean
.DELETE_ON_ERROR:
.SECONDARY:

-include $(COMMON_OBJ:.o=.d) $(wildcard $(BUILD)/servers/*/*.d) \
	 $(wildcard $(BUILD)/tests/unit/*.d) $(wildcard $(BUILD)/bench/*.d) \
	 $(wildcard $(BUILD)/bench/common/*/*.d) \
	 $(wildcard $(BUILD)/tests/hostile/*.d) $(wildcard $(BUILD)/audit/*.d) \
	 $(wildcard $(BUILD)/tests/sample/*.d) \
	 $(wildcard $(BUILD)/tests/e2e/audit/*.d) $(wildcard $(BUILD)/tests/e2e/*.d) \
	 $(wildcard $(BUILD)/tests/fuzz/*.d) $(wildcard $(BUILD)/tests/shell/*.d)
