build-t/common/sandbox/ns.o: common/sandbox/ns.c common/sandbox/fd.h \
 common/sandbox/sandbox-int.h common/sandbox/sandbox.h common/base/buf.h \
 common/base/err.h common/base/ring.h common/policy/policy.h \
 common/policy/subject.h common/protocol/tools.h common/sandbox/pids.h \
 common/sandbox/profile.h
common/sandbox/fd.h:
common/sandbox/sandbox-int.h:
common/sandbox/sandbox.h:
common/base/buf.h:
common/base/err.h:
common/base/ring.h:
common/policy/policy.h:
common/policy/subject.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
