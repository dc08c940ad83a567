build-t/common/policy/subject.o: common/policy/subject.c \
 common/base/text.h common/base/buf.h common/policy/glob.h \
 common/policy/policy.h common/base/err.h common/policy/subject.h
common/base/text.h:
common/base/buf.h:
common/policy/glob.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
