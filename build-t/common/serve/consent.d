build-t/common/serve/consent.o: common/serve/consent.c common/base/buf.h \
 common/base/clock.h common/policy/glob.h common/base/json.h \
 common/base/log.h common/serve/server-int.h common/audit/audit.h \
 common/base/err.h common/policy/policy.h common/policy/subject.h \
 common/sandbox/hook.h common/policy/path.h common/protocol/protocol.h \
 common/sandbox/sandbox.h common/base/ring.h common/protocol/tools.h \
 common/sandbox/pids.h common/sandbox/profile.h common/serve/job.h \
 common/serve/server.h common/base/text.h
common/base/buf.h:
common/base/clock.h:
common/policy/glob.h:
common/base/json.h:
common/base/log.h:
common/serve/server-int.h:
common/audit/audit.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/sandbox/hook.h:
common/policy/path.h:
common/protocol/protocol.h:
common/sandbox/sandbox.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/serve/job.h:
common/serve/server.h:
common/base/text.h:
