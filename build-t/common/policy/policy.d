build-t/common/policy/policy.o: common/policy/policy.c common/base/strv.h \
 common/policy/glob.h common/base/log.h common/policy/policy.h \
 common/base/err.h common/policy/subject.h common/policy/section.h \
 common/base/text.h common/base/buf.h
common/base/strv.h:
common/policy/glob.h:
common/base/log.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/policy/section.h:
common/base/text.h:
common/base/buf.h:
