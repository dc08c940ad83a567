build-t/common/serve/admission.o: common/serve/admission.c \
 common/policy/glob.h common/serve/hostconfig.h common/base/err.h \
 common/base/clock.h common/base/log.h common/policy/own.h \
 common/policy/policy.h common/policy/subject.h common/policy/path.h \
 common/protocol/protocol.h common/base/buf.h common/base/json.h \
 common/sandbox/sandbox.h common/base/ring.h common/protocol/tools.h \
 common/sandbox/pids.h common/sandbox/profile.h common/serve/server.h \
 common/serve/server-int.h common/audit/audit.h common/sandbox/hook.h \
 common/serve/job.h common/base/text.h common/serve/usage.h
common/policy/glob.h:
common/serve/hostconfig.h:
common/base/err.h:
common/base/clock.h:
common/base/log.h:
common/policy/own.h:
common/policy/policy.h:
common/policy/subject.h:
common/policy/path.h:
common/protocol/protocol.h:
common/base/buf.h:
common/base/json.h:
common/sandbox/sandbox.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/serve/server.h:
common/serve/server-int.h:
common/audit/audit.h:
common/sandbox/hook.h:
common/serve/job.h:
common/base/text.h:
common/serve/usage.h:
