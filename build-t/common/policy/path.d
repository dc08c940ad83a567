build-t/common/policy/path.o: common/policy/path.c common/policy/glob.h \
 common/policy/own.h common/policy/policy.h common/base/err.h \
 common/policy/subject.h common/policy/path.h
common/policy/glob.h:
common/policy/own.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/policy/path.h:
