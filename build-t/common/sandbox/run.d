build-t/common/sandbox/run.o: common/sandbox/run.c common/base/clock.h \
 common/base/json.h common/base/buf.h common/base/text.h \
 common/policy/path.h common/base/err.h common/policy/glob.h \
 common/policy/policy.h common/policy/subject.h \
 common/sandbox/sandbox-int.h common/sandbox/fd.h \
 common/sandbox/sandbox.h common/base/ring.h common/protocol/tools.h \
 common/sandbox/pids.h common/sandbox/profile.h
common/base/clock.h:
common/base/json.h:
common/base/buf.h:
common/base/text.h:
common/policy/path.h:
common/base/err.h:
common/policy/glob.h:
common/policy/policy.h:
common/policy/subject.h:
common/sandbox/sandbox-int.h:
common/sandbox/fd.h:
common/sandbox/sandbox.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
