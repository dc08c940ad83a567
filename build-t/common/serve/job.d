build-t/common/serve/job.o: common/serve/job.c common/base/clock.h \
 common/base/log.h common/base/text.h common/base/buf.h \
 common/protocol/protocol.h common/base/err.h common/base/json.h \
 common/sandbox/sandbox.h common/base/ring.h common/policy/policy.h \
 common/policy/subject.h common/protocol/tools.h common/sandbox/pids.h \
 common/sandbox/profile.h common/serve/job.h common/serve/server-int.h \
 common/audit/audit.h common/sandbox/hook.h common/policy/path.h \
 common/policy/glob.h common/serve/server.h
common/base/clock.h:
common/base/log.h:
common/base/text.h:
common/base/buf.h:
common/protocol/protocol.h:
common/base/err.h:
common/base/json.h:
common/sandbox/sandbox.h:
common/base/ring.h:
common/policy/policy.h:
common/policy/subject.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/serve/job.h:
common/serve/server-int.h:
common/audit/audit.h:
common/sandbox/hook.h:
common/policy/path.h:
common/policy/glob.h:
common/serve/server.h:
