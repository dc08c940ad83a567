build-t/common/sandbox/hook.o: common/sandbox/hook.c common/base/buf.h \
 common/base/clock.h common/sandbox/fd.h common/sandbox/hook.h \
 common/base/err.h common/policy/policy.h common/policy/subject.h \
 common/sandbox/sig.h common/sandbox/keeper.h common/base/text.h
common/base/buf.h:
common/base/clock.h:
common/sandbox/fd.h:
common/sandbox/hook.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/sandbox/sig.h:
common/sandbox/keeper.h:
common/base/text.h:
