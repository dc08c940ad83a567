build-t/common/serve/record.o: common/serve/record.c common/base/clock.h \
 common/base/log.h common/serve/server-int.h common/audit/audit.h \
 common/base/err.h common/policy/policy.h common/policy/subject.h \
 common/sandbox/hook.h common/policy/path.h common/policy/glob.h \
 common/protocol/protocol.h common/base/buf.h common/base/json.h \
 common/sandbox/sandbox.h common/base/ring.h common/protocol/tools.h \
 common/sandbox/pids.h common/sandbox/profile.h common/serve/job.h \
 common/serve/server.h
common/base/clock.h:
common/base/log.h:
common/serve/server-int.h:
common/audit/audit.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/sandbox/hook.h:
common/policy/path.h:
common/policy/glob.h:
common/protocol/protocol.h:
common/base/buf.h:
common/base/json.h:
common/sandbox/sandbox.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/serve/job.h:
common/serve/server.h:
