build-t/common/serve/cmdline.o: common/serve/cmdline.c common/base/log.h \
 common/base/strv.h common/base/text.h common/base/buf.h \
 common/policy/own.h common/policy/policy.h common/base/err.h \
 common/policy/subject.h common/policy/section.h \
 common/protocol/protocol.h common/base/json.h common/sandbox/sandbox.h \
 common/base/ring.h common/protocol/tools.h common/sandbox/pids.h \
 common/sandbox/profile.h common/serve/hostconfig.h \
 common/serve/server-int.h common/audit/audit.h common/sandbox/hook.h \
 common/policy/path.h common/policy/glob.h common/serve/job.h \
 common/serve/server.h common/serve/usage.h
common/base/log.h:
common/base/strv.h:
common/base/text.h:
common/base/buf.h:
common/policy/own.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/policy/section.h:
common/protocol/protocol.h:
common/base/json.h:
common/sandbox/sandbox.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/serve/hostconfig.h:
common/serve/server-int.h:
common/audit/audit.h:
common/sandbox/hook.h:
common/policy/path.h:
common/policy/glob.h:
common/serve/job.h:
common/serve/server.h:
common/serve/usage.h:
