build-t/common/sandbox/zygote.o: common/sandbox/zygote.c \
 common/policy/policy.h common/base/err.h common/policy/subject.h \
 common/sandbox/sandbox-int.h common/sandbox/fd.h \
 common/sandbox/sandbox.h common/base/buf.h common/base/ring.h \
 common/protocol/tools.h common/sandbox/pids.h common/sandbox/profile.h
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
