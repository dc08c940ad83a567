build-t/common/serve/start.o: common/serve/start.c common/audit/audit.h \
 common/base/err.h common/policy/policy.h common/policy/subject.h \
 common/policy/glob.h common/base/log.h common/sandbox/sandbox.h \
 common/base/buf.h common/base/ring.h common/protocol/tools.h \
 common/sandbox/pids.h common/sandbox/profile.h common/serve/server-int.h \
 common/sandbox/hook.h common/policy/path.h common/protocol/protocol.h \
 common/base/json.h common/serve/job.h common/serve/server.h
common/audit/audit.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/policy/glob.h:
common/base/log.h:
common/sandbox/sandbox.h:
common/base/buf.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/serve/server-int.h:
common/sandbox/hook.h:
common/policy/path.h:
common/protocol/protocol.h:
common/base/json.h:
common/serve/job.h:
common/serve/server.h:
