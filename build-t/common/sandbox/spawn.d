build-t/common/sandbox/spawn.o: common/sandbox/spawn.c common/base/log.h \
 common/policy/policy.h common/base/err.h common/policy/subject.h \
 common/sandbox/sandbox-int.h common/sandbox/fd.h \
 common/sandbox/sandbox.h common/base/buf.h common/base/ring.h \
 common/protocol/tools.h common/sandbox/pids.h common/sandbox/profile.h
common/base/log.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/sandbox/sandbox-int.h:
common/sandbox/fd.h:
common/sandbox/sandbox.h:
common/base/buf.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
