build-t/common/serve/call.o: common/serve/call.c common/policy/subject.h \
 common/base/err.h common/serve/server-int.h common/audit/audit.h \
 common/policy/policy.h common/sandbox/hook.h common/policy/path.h \
 common/policy/glob.h common/protocol/protocol.h common/base/buf.h \
 common/base/json.h common/sandbox/sandbox.h common/base/ring.h \
 common/protocol/tools.h common/sandbox/pids.h common/sandbox/profile.h \
 common/serve/job.h common/serve/server.h
common/policy/subject.h:
common/base/err.h:
common/serve/server-int.h:
common/audit/audit.h:
common/policy/policy.h:
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
