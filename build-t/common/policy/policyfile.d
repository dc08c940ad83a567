build-t/common/policy/policyfile.o: common/policy/policyfile.c \
 common/policy/glob.h common/policy/policy.h common/base/err.h \
 common/policy/subject.h common/policy/section.h common/protocol/tools.h \
 common/base/buf.h common/base/log.h common/base/text.h
common/policy/glob.h:
common/policy/policy.h:
common/base/err.h:
common/policy/subject.h:
common/policy/section.h:
common/protocol/tools.h:
common/base/buf.h:
common/base/log.h:
common/base/text.h:
