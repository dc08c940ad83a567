build-t/common/audit/audit.o: common/audit/audit.c common/audit/audit.h \
 common/base/err.h common/policy/policy.h common/policy/subject.h \
 common/base/buf.h common/base/clock.h common/base/log.h \
 common/base/text.h
common/audit/audit.h:
common/base/err.h:
common/policy/policy.h:
common/policy/subject.h:
common/base/buf.h:
common/base/clock.h:
common/base/log.h:
common/base/text.h:
