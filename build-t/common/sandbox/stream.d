build-t/common/sandbox/stream.o: common/sandbox/stream.c \
 common/base/text.h common/base/buf.h common/sandbox/sandbox.h \
 common/base/err.h common/base/ring.h common/policy/policy.h \
 common/policy/subject.h common/protocol/tools.h common/sandbox/pids.h \
 common/sandbox/profile.h common/sandbox/stream.h
common/base/text.h:
common/base/buf.h:
common/sandbox/sandbox.h:
common/base/err.h:
common/base/ring.h:
common/policy/policy.h:
common/policy/subject.h:
common/protocol/tools.h:
common/sandbox/pids.h:
common/sandbox/profile.h:
common/sandbox/stream.h:
