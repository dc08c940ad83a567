build-t/common/policy/own.o: common/policy/own.c common/policy/glob.h \
 common/base/log.h common/policy/own.h common/policy/policy.h \
 common/base/err.h common/policy/subject.h
common/policy/glob.h:
common/base/log.h:
common/policy/own.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
