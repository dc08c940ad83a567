build-t/common/serve/loop.o: common/serve/loop.c common/policy/glob.h \
 common/serve/hostconfig.h common/base/err.h common/base/clock.h \
 common/base/log.h common/policy/policy.h common/policy/subject.h \
 common/protocol/protocol.h common/base/buf.h common/base/json.h \
 common/sandbox/sandbox.h common/base/ring.h common/protocol/tools.h \
 common/sandbox/pids.h common/sandbox/profile.h common/serve/loop.h \
 common/serve/server-int.h common/audit/audit.h common/sandbox/hook.h \
 common/policy/path.h common/serve/job.h common/serve/server.h
common/policy/glob.h:
common/serve/hostconfig.h:
common/base/err.h:
common/base/clock.h:
common/base/log.h:
common/policy/policy.h:
common/policy/subject.h:
common/protocol/protocol.h:
common/base/buf.h:
common/base/json.h:
common/sandbox/sandbox.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/serve/loop.h:
common/serve/server-int.h:
common/audit/audit.h:
common/sandbox/hook.h:
common/policy/path.h:
common/serve/job.h:
common/serve/server.h:
