build-t/common/sandbox/confine.o: common/sandbox/confine.c \
 common/policy/policy.h common/base/err.h common/policy/subject.h \
 common/sandbox/sandbox-int.h common/sandbox/fd.h \
 common/sandbox/sandbox.h common/base/buf.h common/base/ring.h \
 common/protocol/tools.h common/sandbox/pids.h common/sandbox/profile.h \
 common/sandbox/sig.h
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
common/sandbox/sig.h:
