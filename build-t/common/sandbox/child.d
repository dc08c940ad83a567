build-t/common/sandbox/child.o: common/sandbox/child.c common/base/log.h \
 common/policy/path.h common/base/err.h common/policy/glob.h \
 common/policy/policy.h common/policy/subject.h common/sandbox/keeper.h \
 common/sandbox/sandbox-int.h common/sandbox/fd.h \
 common/sandbox/sandbox.h common/base/buf.h common/base/ring.h \
 common/protocol/tools.h common/sandbox/pids.h common/sandbox/profile.h \
 common/sandbox/stream.h
common/base/log.h:
common/policy/path.h:
common/base/err.h:
common/policy/glob.h:
common/policy/policy.h:
common/policy/subject.h:
common/sandbox/keeper.h:
common/sandbox/sandbox-int.h:
common/sandbox/fd.h:
common/sandbox/sandbox.h:
common/base/buf.h:
common/base/ring.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/sandbox/stream.h:
