build-t/common/policy/policy-print.o: common/policy/policy-print.c \
 common/policy/policy.h common/base/err.h common/policy/subject.h \
 common/policy/section.h common/base/text.h common/base/buf.h
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/policy/section.h:
common/base/text.h:
common/base/buf.h:
